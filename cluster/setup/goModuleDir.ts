import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

/**
 * The directory of a module pinned in one of the repository's Go modules (`cluster/go.mod` for the control plane's
 * components, `cluster/crds/go.mod` for modules read only for their CRDs), downloaded into the Go module cache if
 * needed.
 */
export function goModuleDir(
  module: string,
  pinnedIn: 'cluster' | 'cluster/crds' = 'cluster',
): string {
  const cwd = resolve(__dirname, '../..', pinnedIn);
  const result = spawnSync('go', ['mod', 'download', '-json', module], {
    cwd,
    encoding: 'utf8',
  });
  if (result.status !== 0) {
    throw new Error(
      `Could not locate ${module} pinned in ${cwd}/go.mod: ${result.stderr}${result.stdout}`,
    );
  }
  return (JSON.parse(result.stdout) as { Dir: string }).Dir;
}
