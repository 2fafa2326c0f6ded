import {
  demoPlatformConfig,
  parsePlatform,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { KubernetesObjectClient, KubernetesRequestError } from '../cluster';
import { draFindings } from './draFindings';

/** The demo platform with a whole-GPU DRA pool and a single-profile MIG DRA pool. */
function draPlatform() {
  const config = JSON.parse(JSON.stringify(demoPlatformConfig));
  for (const pool of config.pools) {
    if (pool.name === 'l4-ondemand') pool.allocation = 'dra';
    if (pool.name === 'a100-mig') {
      pool.allocation = 'dra';
      pool.sharing.layout = { '1g.10gb': 7 };
    }
  }
  return parsePlatform(config);
}

/** A client that serves `resource.k8s.io/v1` or not and has the DeviceClasses named. */
function clientOf(serves: boolean, classes: string[]) {
  const reads: string[] = [];
  const client: KubernetesObjectClient = {
    apply: () => Promise.reject(new Error('not used')),
    delete: () => Promise.reject(new Error('not used')),
    list: () => Promise.reject(new Error('not used')),
    serves: async (apiVersion, kind) =>
      serves &&
      apiVersion === 'resource.k8s.io/v1' &&
      kind === 'ResourceClaimTemplate',
    read: async ref => {
      reads.push(`${ref.kind} ${ref.name}`);
      if (!classes.includes(ref.name)) {
        throw new KubernetesRequestError('not found', 'http', 404);
      }
      return {
        apiVersion: ref.apiVersion,
        kind: ref.kind,
        metadata: { name: ref.name },
      };
    },
  };
  return { client, reads };
}

describe('draFindings', () => {
  it('reads nothing when no pool uses DRA', async () => {
    const { client, reads } = clientOf(false, []);
    expect(
      await draFindings('gpu-eu', parsePlatform(demoPlatformConfig), client),
    ).toEqual([]);
    expect(reads).toEqual([]);
  });

  it('says a cluster without resource.k8s.io/v1 cannot serve the DRA pools', async () => {
    const { client } = clientOf(false, []);
    expect(await draFindings('gpu-eu', draPlatform(), client)).toEqual([
      expect.objectContaining({
        id: 'dra-api-missing',
        severity: 'error',
        cluster: 'gpu-eu',
        where: 'API group resource.k8s.io/v1',
        message: expect.stringContaining('DRA pools l4-ondemand, a100-mig'),
        fix: expect.stringContaining('Kubernetes 1.34 or later'),
      }),
    ]);
  });

  it('names each missing NVIDIA DeviceClass and the pools that claim from it', async () => {
    const { client, reads } = clientOf(true, ['gpu.nvidia.com']);
    const findings = await draFindings('gpu-eu', draPlatform(), client);
    expect(reads).toEqual([
      'DeviceClass gpu.nvidia.com',
      'DeviceClass mig.nvidia.com',
    ]);
    expect(findings).toEqual([
      expect.objectContaining({
        id: 'dra-device-class-missing',
        where: 'DeviceClass mig.nvidia.com',
        message: expect.stringContaining('pools a100-mig'),
        fix: expect.stringContaining('dra-driver-nvidia-gpu'),
      }),
    ]);
  });

  it('finds nothing when the API and both classes are there', async () => {
    const { client } = clientOf(true, ['gpu.nvidia.com', 'mig.nvidia.com']);
    expect(await draFindings('gpu-eu', draPlatform(), client)).toEqual([]);
  });

  it('names the dynamic MIG DeviceClass a dynamic MIG pool claims from, and how to provide it', async () => {
    const config = JSON.parse(JSON.stringify(demoPlatformConfig));
    const pool = config.pools.find(
      (p: { name: string }) => p.name === 'a100-mig',
    );
    pool.allocation = 'dra';
    pool.sharing = {
      type: 'mig',
      partitioning: 'dynamic',
      layout: { '1g.10gb': 7, '3g.40gb': 2 },
    };
    const { client, reads } = clientOf(true, ['mig.nvidia.com']);
    const findings = await draFindings('gpu-eu', parsePlatform(config), client);
    expect(reads).toEqual(['DeviceClass mig-dynamic.gpu.backstage.io']);
    expect(findings).toEqual([
      expect.objectContaining({
        id: 'dra-device-class-missing',
        where: 'DeviceClass mig-dynamic.gpu.backstage.io',
        message: expect.stringContaining('pools a100-mig'),
        fix: expect.stringMatching(
          /Create the DeviceClass mig-dynamic\.gpu\.backstage\.io .*DynamicMIG feature gate.*deviceClassMappings entry gpu\.backstage\.io\/mig-multiprocessors \(counter multiprocessors\)/,
        ),
      }),
    ]);
    const present = clientOf(true, ['mig-dynamic.gpu.backstage.io']);
    expect(
      await draFindings('gpu-eu', parsePlatform(config), present.client),
    ).toEqual([]);
  });
});
