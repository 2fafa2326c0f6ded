import {
  DYNAMIC_MIG_DEVICE_CLASS,
  Platform,
  PlatformFinding,
} from '@gpu-platform/backstage-plugin-gpu-common';
import {
  draDeviceClass,
  DYNAMIC_MIG_DEVICE_CLASS_MAPPING,
} from '@gpu-platform/backstage-plugin-gpu-node';
import { KubernetesObjectClient, KubernetesRequestError } from '../cluster';

/** The DeviceClasses the platform's DRA pools claim from, each with the pools that need it. */
function neededClasses(platform: Platform): Map<string, string[]> {
  const needed = new Map<string, string[]>();
  for (const pool of platform.pools) {
    if (pool.allocation.backend !== 'dra') continue;
    const name = draDeviceClass(pool);
    needed.set(name, [...(needed.get(name) ?? []), pool.name]);
  }
  return needed;
}

/**
 * What a cluster lacks for the platform's DRA pools: `dra-api-missing` when it does not serve `resource.k8s.io/v1`
 * ResourceClaimTemplates (Kubernetes before 1.34, or DRA turned off), `dra-device-class-missing` for each NVIDIA
 * DeviceClass a DRA pool claims from that the cluster does not have (the NVIDIA DRA driver's chart is not installed; for
 * a dynamic MIG pool, the platform's own `mig-dynamic.gpu.backstage.io` was not created).
 * Nothing when no pool uses DRA.
 */
export async function draFindings(
  cluster: string,
  platform: Platform,
  client: KubernetesObjectClient,
): Promise<PlatformFinding[]> {
  const needed = neededClasses(platform);
  if (needed.size === 0) return [];
  const pools = [...needed.values()].flat();
  if (!(await client.serves('resource.k8s.io/v1', 'ResourceClaimTemplate'))) {
    return [
      {
        id: 'dra-api-missing',
        severity: 'error',
        source: 'cluster',
        cluster,
        where: 'API group resource.k8s.io/v1',
        message: `Cluster ${cluster} does not serve resource.k8s.io/v1, so the services of DRA pools ${pools.join(
          ', ',
        )} cannot claim GPUs: their pods would be refused`,
        fix: 'Run Kubernetes 1.34 or later (DRA is stable there), or set allocation: device-plugin on those pools',
      },
    ];
  }
  const findings: PlatformFinding[] = [];
  for (const [name, users] of needed) {
    try {
      await client.read({
        apiVersion: 'resource.k8s.io/v1',
        kind: 'DeviceClass',
        name,
      });
    } catch (error) {
      if (
        !(error instanceof KubernetesRequestError && error.statusCode === 404)
      ) {
        throw error;
      }
      findings.push({
        id: 'dra-device-class-missing',
        severity: 'error',
        source: 'cluster',
        cluster,
        where: `DeviceClass ${name}`,
        message: `Cluster ${cluster} has no DeviceClass ${name}, which the claims of pools ${users.join(
          ', ',
        )} ask for: they would stay unallocated and their pods Pending`,
        fix:
          name === DYNAMIC_MIG_DEVICE_CLASS
            ? `Create the DeviceClass ${name} (gpu-node dynamicMigDeviceClass: the driver's MIG devices, as mig.nvidia.com selects them; the driver's chart does not define it), run the NVIDIA DRA driver with its DynamicMIG feature gate on the pools' nodes, and give Kueue's Configuration the deviceClassMappings entry ${DYNAMIC_MIG_DEVICE_CLASS_MAPPING.name} (counter ${DYNAMIC_MIG_DEVICE_CLASS_MAPPING.sources![0].counter.name})`
            : 'Install the NVIDIA DRA driver (Helm chart dra-driver-nvidia-gpu, v0.4 or later), which defines gpu.nvidia.com and mig.nvidia.com',
      });
    }
  }
  return findings;
}
