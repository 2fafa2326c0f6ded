import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** A promtool binary and its Prometheus major version. */
export interface Promtool {
  path: string;
  version: string;
}

/**
 * Test-only: the promtool binaries to check rules with, one per directory of `GPU_PROMETHEUS_BINARIES` (`:`-separated;
 * default `/usr/bin`, Debian's), as the gpu-backend Prometheus tests read them. Throws when a directory has no
 * promtool, or when a major of `GPU_REQUIRE_PROMETHEUS` (e.g. `2,3`) is missing: the rule tests fail, never skip.
 */
export function promtools(env: NodeJS.ProcessEnv = process.env): Promtool[] {
  const dirs = (env.GPU_PROMETHEUS_BINARIES ?? '/usr/bin')
    .split(':')
    .filter(Boolean);
  const found = dirs.map(dir => {
    const path = join(dir, 'promtool');
    if (!existsSync(path)) {
      throw new Error(
        `No promtool in ${dir} (GPU_PROMETHEUS_BINARIES=${
          env.GPU_PROMETHEUS_BINARIES ?? ''
        }): install Debian's prometheus package or build scripts/prometheus3`,
      );
    }
    const out = execFileSync(path, ['--version'], { encoding: 'utf8' });
    const version = /version (\d+\.\d+\.\d+\S*)/.exec(out)?.[1] ?? out;
    return { path, version };
  });
  for (const major of (env.GPU_REQUIRE_PROMETHEUS ?? '').split(',')) {
    if (
      major.trim() &&
      !found.some(p => p.version.startsWith(`${major.trim()}.`))
    ) {
      throw new Error(
        `promtool ${major}.x is required (GPU_REQUIRE_PROMETHEUS=${
          env.GPU_REQUIRE_PROMETHEUS
        }) but ${dirs.join(':')} has ${
          found.map(p => p.version).join(', ') || 'none'
        }`,
      );
    }
  }
  return found;
}
