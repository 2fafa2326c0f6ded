import { ConfigReader } from '@backstage/config';
import { ClusterConfig } from './ClusterConfig';

const kubernetes = {
  clusterLocatorMethods: [
    {
      type: 'config',
      clusters: [
        {
          name: 'insecure',
          url: 'https://10.0.0.2:6443',
          authProvider: 'serviceAccount',
          serviceAccountToken: 'token',
          skipTLSVerify: true,
        },
      ],
    },
  ],
};

function read(clusters: object[]) {
  return ClusterConfig.fromConfig(
    new ConfigReader({ kubernetes, gpu: { clusters } }),
  );
}

const dev = { name: 'dev', kubeconfig: '/etc/gpu/dev.kubeconfig' };
const prod = { name: 'prod-eu', kubeconfig: '/etc/gpu/prod.kubeconfig' };

describe('ClusterConfig: MultiKueue managers', () => {
  it('reads a manager and its workers', () => {
    const config = read([
      dev,
      prod,
      {
        name: 'batch',
        kubeconfig: '/etc/gpu/batch.kubeconfig',
        multiKueue: { workers: ['dev', 'prod-eu'] },
      },
    ]);
    expect(config.target('batch')).toMatchObject({
      name: 'batch',
      mode: 'apply',
      multiKueue: { workers: ['dev', 'prod-eu'] },
    });
    expect(config.target('dev').multiKueue).toBeUndefined();
  });

  it('refuses to start naming every inconsistency with its key', () => {
    let message = '';
    try {
      read([
        dev,
        { name: 'gitops', mode: 'gitops' },
        { name: 'insecure' },
        {
          name: 'batch',
          kubeconfig: '/etc/gpu/batch.kubeconfig',
          multiKueue: {
            workers: ['dev', 'dev', 'batch', 'nowhere', 'gitops', 'insecure'],
          },
        },
        {
          name: 'second',
          kubeconfig: '/etc/gpu/second.kubeconfig',
          multiKueue: { workers: ['dev', 'batch'] },
        },
        { name: 'empty', mode: 'dry-run', multiKueue: { workers: [] } },
      ]);
    } catch (error) {
      message = (error as Error).message;
    }
    const lines = message.split('\n');
    expect(lines[0]).toBe(
      'The MultiKueue config of gpu.clusters is inconsistent; the backend does not start until it is fixed:',
    );
    expect(lines.slice(1)).toEqual([
      "- gpu.clusters[3].multiKueue.workers: 'dev' is listed twice",
      "- gpu.clusters[3].multiKueue.workers: 'batch' is the manager itself",
      "- gpu.clusters[3].multiKueue.workers: 'nowhere' is not a configured cluster (gpu.clusters: dev, gitops, insecure, batch, second, empty)",
      "- gpu.clusters[3].multiKueue.workers: 'gitops' has mode gitops; a MultiKueue worker must be an apply cluster (its credentials are the manager's kubeconfig for it)",
      "- gpu.clusters[3].multiKueue.workers: 'insecure' skips TLS verification (skipTLSVerify); Kueue refuses a worker kubeconfig without it: give the cluster's caData or caFile",
      "- gpu.clusters[4].multiKueue.workers: 'dev' is a worker of 'batch' too; a worker's batch Jobs go to one manager",
      "- gpu.clusters[4].multiKueue.workers: 'batch' is a MultiKueue manager itself; a worker cannot be one",
      "- gpu.clusters[5].multiKueue: cluster 'empty' has mode dry-run; a MultiKueue manager must be an apply cluster (Backstage applies its admission check, worker clusters and Jobs)",
      "- gpu.clusters[5].multiKueue.workers: cluster 'empty' lists no worker cluster",
    ]);
  });
});
