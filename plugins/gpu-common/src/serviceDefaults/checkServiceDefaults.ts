import { PlatformFinding } from '../api/platformChecks';
import { formatConfigPath } from '../platform/configIssues';
import { Pool } from '../platform/types';
import { ServiceDefaults, ServiceSettings } from './types';

/** Metric families of CPU and memory use (cAdvisor, node exporter, client libraries). */
const CPU_OR_MEMORY_METRIC =
  /\b(container_cpu_|node_cpu_|process_cpu_|container_memory_|node_memory_|process_resident_memory_)/;

/**
 * The service-default mistakes of `gpu.serviceDefaults`:
 *
 * - `no-shared-weights-cache`: no shared (ReadWriteMany) model-cache claim (`modelCache.existingClaim`) in the
 *   defaults nor in a pool's override, so each replica downloads the weights into a claim of its own and every cold
 *   start (a scale-up, a rescheduled pod) waits minutes for the download on a GPU that is already paid for;
 * - `cpu-autoscaling-on-gpu`: a scale-to-zero wake query on CPU or memory metrics: a GPU service is bound by its
 *   GPU, its CPU stays low under load, so the service is woken (and scaled) on the wrong signal.
 *
 * @public
 */
export function checkServiceDefaults(
  serviceDefaults: ServiceDefaults,
  pools: readonly Pick<Pool, 'name'>[],
): PlatformFinding[] {
  const findings: PlatformFinding[] = [];
  if (!serviceDefaults.defaults.modelCache?.existingClaim) {
    const uncached = pools
      .map(p => p.name)
      .filter(name => !serviceDefaults.byPool[name]?.modelCache?.existingClaim);
    if (uncached.length > 0) {
      findings.push({
        id: 'no-shared-weights-cache',
        severity: 'warning',
        source: 'config',
        where: 'gpu.serviceDefaults.modelCache.existingClaim',
        message: `No shared weights cache for pool${
          uncached.length > 1 ? 's' : ''
        } ${uncached.join(
          ', ',
        )}: each service gets a model-cache claim of its own, so every new replica downloads the weights again and its GPU idles, paid for, until they are loaded`,
        fix: 'Create a ReadWriteMany PersistentVolumeClaim (e.g. on EFS, Filestore or NFS) in the team namespaces and set gpu.serviceDefaults.modelCache.existingClaim (or byPool.<pool>.modelCache.existingClaim) to its name',
      });
    }
  }
  const scopes: Array<[PropertyKey[], ServiceSettings]> = [
    [['gpu', 'serviceDefaults'], serviceDefaults.defaults],
    ...Object.entries(serviceDefaults.byPool).map(
      ([pool, s]): [PropertyKey[], ServiceSettings] => [
        ['gpu', 'serviceDefaults', 'byPool', pool],
        s,
      ],
    ),
    ...Object.entries(serviceDefaults.byEnvironment).map(
      ([environment, s]): [PropertyKey[], ServiceSettings] => [
        ['gpu', 'serviceDefaults', 'byEnvironment', environment],
        s,
      ],
    ),
  ];
  for (const [path, settings] of scopes) {
    const wake = settings.wakeTrigger;
    if (wake?.type === 'prometheus' && CPU_OR_MEMORY_METRIC.test(wake.query)) {
      findings.push({
        id: 'cpu-autoscaling-on-gpu',
        severity: 'error',
        source: 'config',
        where: formatConfigPath([...path, 'scaleToZero', 'wakeQuery']),
        message: `The scale-to-zero wake query reads CPU or memory metrics (${wake.query}): a GPU service's load shows in its request queue and GPU, not its CPU, so it would be woken and scaled on the wrong signal`,
        fix: "Wake on demand instead: a gateway or queue metric of the service (e.g. requests per second at the ingress for {{service}}), or KEDA's HTTP add-on (scaleToZero: { httpAddOn: {} })",
      });
    }
  }
  return findings;
}
