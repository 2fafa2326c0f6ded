import { ConfigReader } from '@backstage/config';
import { ClusterConfig, DRY_RUN_TARGET } from './ClusterConfig';

const kubernetes = {
  clusterLocatorMethods: [
    { type: 'localKubectlProxy' },
    {
      type: 'config',
      clusters: [
        {
          name: 'gpu-eu',
          url: 'https://10.0.0.1:6443',
          authProvider: 'serviceAccount',
          serviceAccountToken: 'token-eu',
          caData: 'Q0E=',
        },
        {
          name: 'gpu-us',
          url: 'https://10.0.0.2:6443',
          authMetadata: {
            'kubernetes.io/auth-provider': 'serviceAccount',
            'kubernetes.io/service-account-token': 'token-us',
          },
          skipTLSVerify: true,
        },
        { name: 'gke', url: 'https://10.0.0.3', authProvider: 'google' },
      ],
    },
  ],
};

function read(data: object) {
  return ClusterConfig.fromConfig(new ConfigReader(data));
}

describe('ClusterConfig', () => {
  it('is dry-run when gpu.clusters is absent, even with Kubernetes clusters', () => {
    const config = read({ kubernetes });
    expect(config.list()).toEqual([]);
    expect(config.defaultTarget()).toEqual(DRY_RUN_TARGET);
    expect(config.target()).toEqual({ mode: 'dry-run' });
    expect(() => config.target('gpu-eu')).toThrow(
      "Unknown cluster 'gpu-eu'; no cluster is configured, services are dry-run",
    );
  });

  it('takes credentials from the kubernetes config or a kubeconfig', () => {
    const config = read({
      kubernetes,
      gpu: {
        clusters: [
          { name: 'gpu-eu' },
          { name: 'gpu-us', mode: 'apply' },
          { name: 'lab', kubeconfig: '/etc/gpu/kubeconfig', context: 'lab' },
          { name: 'argo', mode: 'gitops' },
          { name: 'gke', mode: 'dry-run' },
        ],
      },
    });

    expect(config.list()).toEqual([
      {
        name: 'gpu-eu',
        mode: 'apply',
        connection: {
          type: 'serviceAccount',
          url: 'https://10.0.0.1:6443',
          serviceAccountToken: 'token-eu',
          caData: 'Q0E=',
          caFile: undefined,
          skipTLSVerify: false,
        },
      },
      {
        name: 'gpu-us',
        mode: 'apply',
        connection: {
          type: 'serviceAccount',
          url: 'https://10.0.0.2:6443',
          serviceAccountToken: 'token-us',
          caData: undefined,
          caFile: undefined,
          skipTLSVerify: true,
        },
      },
      {
        name: 'lab',
        mode: 'apply',
        connection: {
          type: 'kubeconfig',
          path: '/etc/gpu/kubeconfig',
          context: 'lab',
        },
      },
      { name: 'argo', mode: 'gitops' },
      { name: 'gke', mode: 'dry-run' },
    ]);
    expect(config.defaultTarget().name).toBe('gpu-eu');
    expect(config.target('argo').mode).toBe('gitops');
    expect(() => config.target('nope')).toThrow(
      "Unknown cluster 'nope'; configured clusters are gpu-eu, gpu-us, lab, argo, gke",
    );
  });

  it.each([
    [
      { clusters: [{ name: 'x', mode: 'push' }] },
      "gpu.clusters[0].mode must be one of apply, gitops, dry-run; got 'push'",
    ],
    [
      { clusters: [{ name: 'missing' }] },
      "gpu.clusters[0] 'missing' has mode apply but neither a kubeconfig nor a kubernetes.clusterLocatorMethods cluster (type config) named 'missing'",
    ],
    [
      { clusters: [{ name: 'gke' }] },
      "Kubernetes cluster 'gke' uses authProvider 'google'; applying GPU services supports 'serviceAccount' (or set gpu.clusters[].kubeconfig)",
    ],
    [
      { clusters: [{ name: 'gpu-eu' }, { name: 'gpu-eu', mode: 'gitops' }] },
      "gpu.clusters lists 'gpu-eu' twice; cluster names must be unique",
    ],
  ])('rejects bad config %j', (gpu, message) => {
    expect(() => read({ kubernetes, gpu })).toThrow(message);
  });

  it('needs a token for a service account cluster', () => {
    expect(() =>
      read({
        kubernetes: {
          clusterLocatorMethods: [
            { type: 'config', clusters: [{ name: 'c', url: 'https://c' }] },
          ],
        },
        gpu: { clusters: [{ name: 'c' }] },
      }),
    ).toThrow("Kubernetes cluster 'c' has no serviceAccountToken");
  });
});
