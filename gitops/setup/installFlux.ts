/**
 * Installs what Flux's controllers need in the cluster they run against, run by `scripts/gitops up` (not part of the
 * product): the runtime namespace and every CRD the pinned source-controller and kustomize-controller modules ship
 * (their `config/crd/bases`, copied beside the binaries by `scripts/gitops build`), then waits until the API serves
 * them.
 *
 *   node --require sucrase/register gitops/setup/installFlux.ts --kubeconfig FILE --crds DIR --namespace NAME
 */
import { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { RawClient } from '../../cluster/setup/rawClient';

const FIELD_MANAGER = 'gpu-local-gitops';

function option(name: string): string {
  const index = process.argv.indexOf(`--${name}`);
  const value = index >= 0 ? process.argv[index + 1] : undefined;
  if (!value) throw new Error(`--${name} is required`);
  return value;
}

type Crd = KubernetesObject & {
  status?: { conditions?: Array<{ type: string; status: string }> };
};

async function main() {
  const kc = new KubeConfig();
  kc.loadFromFile(option('kubeconfig'));
  const api = new RawClient(kc, FIELD_MANAGER);
  await api.apply({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: option('namespace') },
  });
  const dir = option('crds');
  const crds = readdirSync(dir)
    .filter(file => file.endsWith('.yaml'))
    .sort()
    .flatMap(file =>
      parseAllDocuments(readFileSync(join(dir, file), 'utf8'))
        .map(doc => doc.toJS() as KubernetesObject | null)
        .filter((object): object is KubernetesObject => !!object?.kind),
    );
  for (const crd of crds) await api.apply(crd);
  const deadline = Date.now() + 60_000;
  for (const crd of crds) {
    for (;;) {
      const read = await api.read<Crd>(crd);
      if (
        read.status?.conditions?.some(
          c => c.type === 'Established' && c.status === 'True',
        )
      ) {
        break;
      }
      if (Date.now() > deadline) {
        throw new Error(`CRD ${crd.metadata?.name} not established in 60 s`);
      }
      await new Promise(r => setTimeout(r, 300));
    }
  }
  process.stdout.write(`${crds.length} Flux CRDs established\n`);
}

main().catch(error => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
