import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  allowanceFromConfig,
  demoPlatformConfig,
  parsePlatform,
  Platform,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { renderBatchJob } from '@gpu-platform/backstage-plugin-gpu-node';
import { parse } from 'yaml';
import { ClusterTarget } from '../cluster';
import {
  multiKueueCandidatePools,
  multiKueueJob,
  multiKueueManagerOf,
  multiKueueTeamPools,
  renderMultiKueueManagerObjects,
  renderMultiKueueManagerPlatform,
  workerKubeconfig,
} from './multiKueue';

const TEAM = 'ocr';
const demo = parsePlatform({
  ...demoPlatformConfig,
  teams: [
    {
      name: TEAM,
      namespaces: ['ocr'],
      gpuQuota: { 'spot-l4': 2, 'spot-l4-eu': 3, 'l4-ondemand': 1 },
      monthlyBudget: '10000',
    },
  ],
  pools: [
    ...demoPlatformConfig.pools,
    {
      ...demoPlatformConfig.pools.find(p => p.name === 'spot-l4')!,
      name: 'spot-l4-eu',
      nodeLabels: {
        'karpenter.sh/capacity-type': 'spot',
        'gpu.example.com/pool': 'spot-l4-eu',
        'topology.kubernetes.io/region': 'eu-west-1',
      },
    },
  ],
});
/** dev has the demo pools, prod-eu its own spot L4s and the on-demand L4s. */
const platform: Platform = {
  ...demo,
  pools: demo.pools.map(p => ({
    ...p,
    cluster: ['spot-l4-eu', 'l4-ondemand'].includes(p.name) ? 'prod-eu' : 'dev',
  })),
};
const allowances = platform.teams.map(allowanceFromConfig);
const manager: ClusterTarget = {
  name: 'batch',
  mode: 'apply',
  multiKueue: { workers: ['dev', 'prod-eu'] },
};
const pool = (name: string) => platform.pools.find(p => p.name === name)!;

describe('MultiKueue batch jobs', () => {
  it('finds the manager of a worker, and the batch pools of its workers where the team has quota, the requested one first', () => {
    const clusters: ClusterTarget[] = [
      { name: 'dev', mode: 'apply' },
      { name: 'prod-eu', mode: 'apply' },
      manager,
    ];
    expect(multiKueueManagerOf(clusters, 'prod-eu')?.name).toBe('batch');
    expect(multiKueueManagerOf(clusters, 'batch')).toBeUndefined();
    expect(
      multiKueueCandidatePools(
        platform,
        manager,
        pool('spot-l4-eu'),
        1,
        allowances[0],
      ).map(p => p.name),
    ).toEqual(['spot-l4-eu', 'spot-l4']);
    // On-demand pools never run batch jobs; a pool without the team's quota is no candidate.
    expect(
      multiKueueCandidatePools(platform, manager, pool('spot-l4'), 1, {
        ...allowances[0],
        gpuUnits: { 'spot-l4-eu': 1000 },
      }).map(p => p.name),
    ).toEqual(['spot-l4-eu']);
    expect(
      multiKueueCandidatePools(
        platform,
        { ...manager, multiKueue: { workers: ['dev'] } },
        pool('spot-l4'),
        1,
        allowances[0],
      ).map(p => p.name),
    ).toEqual(['spot-l4']);
  });

  it('renders the Job managed by MultiKueue, selecting the labels its candidate pools share and tolerating their taints', () => {
    const job = renderBatchJob(
      platform,
      {
        name: 'ocr-batch',
        team: TEAM,
        environment: 'dev',
        pool: 'spot-l4',
        image: 'registry.example.com/ocr:1',
        completions: 4,
        parallelism: 2,
        gpusPerPod: 1,
        backoffLimit: 1,
      },
      { batchId: 'b-1' },
    );
    const candidates = [pool('spot-l4'), pool('spot-l4-eu')];
    const rendered = multiKueueJob(job, candidates);
    expect(rendered.spec?.managedBy).toBe('kueue.x-k8s.io/multikueue');
    expect(rendered.spec?.suspend).toBe(true);
    expect(rendered.spec?.template.spec?.nodeSelector).toEqual({
      'karpenter.sh/capacity-type': 'spot',
    });
    expect(rendered.spec?.template.spec?.tolerations).toEqual(
      job.spec?.template.spec?.tolerations,
    );
    expect(rendered.metadata?.labels?.['kueue.x-k8s.io/queue-name']).toBe(
      'gpu-ocr',
    );
    // The single-cluster Job is unchanged.
    expect(job.spec?.managedBy).toBeUndefined();
  });

  it('renders the manager: a Secret and MultiKueueCluster per worker, the config, the admission check and the team queue that waits for it', () => {
    const objects = renderMultiKueueManagerObjects({
      platform,
      allowances,
      team: TEAM,
      workers: [
        { name: 'dev', kubeconfig: '{"dev":true}' },
        { name: 'prod-eu', kubeconfig: '{"prod":true}' },
      ],
      candidates: [pool('spot-l4'), pool('spot-l4-eu')],
    });
    expect(
      objects.map(
        o =>
          `${o.kind} ${
            o.metadata?.namespace ? `${o.metadata.namespace}/` : ''
          }${o.metadata?.name}`,
      ),
    ).toEqual([
      'Secret kueue-system/gpu-multikueue-dev',
      'MultiKueueCluster dev',
      'Secret kueue-system/gpu-multikueue-prod-eu',
      'MultiKueueCluster prod-eu',
      'MultiKueueConfig gpu-multikueue',
      'AdmissionCheck gpu-multikueue',
      ...objects
        .slice(6)
        .map(
          o =>
            `${o.kind} ${
              o.metadata?.namespace ? `${o.metadata.namespace}/` : ''
            }${o.metadata?.name}`,
        ),
    ]);
    const byKind = (kind: string) =>
      objects.filter(o => o.kind === kind) as any[];
    expect(byKind('Secret')[1].data).toEqual({
      kubeconfig: Buffer.from('{"prod":true}').toString('base64'),
    });
    expect(byKind('MultiKueueCluster')[1].spec).toEqual({
      clusterSource: {
        kubeConfig: {
          locationType: 'Secret',
          location: 'gpu-multikueue-prod-eu',
        },
      },
    });
    expect(byKind('MultiKueueConfig')[0].spec).toEqual({
      clusters: ['dev', 'prod-eu'],
    });
    expect(byKind('AdmissionCheck')[0].spec).toEqual({
      controllerName: 'kueue.x-k8s.io/multikueue',
      parameters: {
        apiGroup: 'kueue.x-k8s.io',
        kind: 'MultiKueueConfig',
        name: 'gpu-multikueue',
      },
    });
    const [queue] = byKind('ClusterQueue');
    expect(queue.metadata.name).toBe('gpu-ocr');
    expect(queue.spec.admissionChecksStrategy).toEqual({
      admissionChecks: [{ name: 'gpu-multikueue' }],
    });
    // The team's quota on each worker's pool, and no other pool's.
    const flavors = queue.spec.resourceGroups.flatMap((g: any) => g.flavors);
    const gpus = Object.fromEntries(
      flavors
        .filter((f: any) =>
          f.resources.some((r: any) => r.name === 'nvidia.com/gpu'),
        )
        .map((f: any) => [
          f.name,
          f.resources.find((r: any) => r.name === 'nvidia.com/gpu')
            .nominalQuota,
        ]),
    );
    expect(gpus).toEqual({ 'spot-l4': '2', 'spot-l4-eu': '3' });
    expect(
      byKind('ResourceFlavor')
        .map(f => f.metadata.name)
        .sort(),
    ).toEqual(expect.arrayContaining(['spot-l4', 'spot-l4-eu']));
    expect(byKind('ResourceFlavor').map(f => f.metadata.name)).not.toContain(
      'l4-ondemand',
    );
    expect(byKind('LocalQueue').map(q => q.metadata.namespace)).toEqual([
      'ocr',
    ]);
  });

  it('renders what the platform reconciler keeps on the manager: the shared objects once, each team with quota on a worker batch pool', () => {
    const teams = [
      ...platform.teams,
      {
        ...platform.teams[0],
        name: 'search',
        namespaces: ['search'],
        gpuQuota: { 'spot-l4': 1 },
      },
      // No quota on a batch pool of a worker: nothing of it on the manager.
      {
        ...platform.teams[0],
        name: 'web',
        namespaces: ['web'],
        gpuQuota: { 'l4-ondemand': 1 },
      },
    ];
    const objects = renderMultiKueueManagerPlatform({
      platform: { ...platform, teams },
      allowances: teams.map(allowanceFromConfig),
      manager,
      workers: [
        { name: 'dev', kubeconfig: '{"dev":true}' },
        { name: 'prod-eu', kubeconfig: '{"prod":true}' },
      ],
    });
    const names = (kind: string) =>
      objects
        .filter(o => o.kind === kind)
        .map(o =>
          o.metadata?.namespace
            ? `${o.metadata.namespace}/${o.metadata.name}`
            : o.metadata?.name,
        );
    expect(names('Secret')).toEqual([
      'kueue-system/gpu-multikueue-dev',
      'kueue-system/gpu-multikueue-prod-eu',
    ]);
    expect(names('AdmissionCheck')).toEqual(['gpu-multikueue']);
    expect(names('ClusterQueue')).toEqual(['gpu-ocr', 'gpu-search']);
    expect(names('LocalQueue')).toEqual(['ocr/gpu-ocr', 'search/gpu-search']);
    expect(names('Namespace')).toEqual([]);
    const keys = objects.map(
      o => `${o.kind} ${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`,
    );
    expect(new Set(keys).size).toBe(keys.length);
    // A team's ClusterQueue covers every batch pool of the workers where it has quota, whatever a Job asks for.
    expect(
      multiKueueTeamPools(platform, manager, allowances[0]).map(p => p.name),
    ).toEqual(['spot-l4', 'spot-l4-eu']);
    // No team with such quota: nothing at all.
    expect(
      renderMultiKueueManagerPlatform({
        platform: { ...platform, teams: [teams[2]] },
        allowances: [allowanceFromConfig(teams[2])],
        manager,
        workers: [{ name: 'dev', kubeconfig: '{}' }],
      }),
    ).toEqual([]);
  });

  describe('workerKubeconfig', () => {
    let dir: string;
    beforeEach(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mk-kubeconfig-'));
    });
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

    it('gives a worker kubeconfig that names files inline, as Kueue requires', () => {
      fs.writeFileSync(path.join(dir, 'ca.crt'), 'CA');
      fs.writeFileSync(path.join(dir, 'admin.crt'), 'CERT');
      fs.writeFileSync(path.join(dir, 'admin.key'), 'KEY');
      const file = path.join(dir, 'kubeconfig');
      fs.writeFileSync(
        file,
        `apiVersion: v1
kind: Config
clusters:
- name: other
  cluster: { server: 'https://10.0.0.9:6443', certificate-authority-data: T1RIRVI= }
- name: prod
  cluster: { server: 'https://127.0.0.1:16572', certificate-authority: ${dir}/ca.crt }
users:
- name: admin
  user: { client-certificate: ${dir}/admin.crt, client-key: ${dir}/admin.key }
contexts:
- name: other
  context: { cluster: other, user: admin }
- name: prod
  context: { cluster: prod, user: admin }
current-context: other
`,
      );
      const config = parse(
        workerKubeconfig({
          name: 'prod-eu',
          mode: 'apply',
          connection: { type: 'kubeconfig', path: file, context: 'prod' },
        }),
      );
      expect(config).toEqual({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [
          {
            name: 'prod-eu',
            cluster: {
              server: 'https://127.0.0.1:16572',
              'certificate-authority-data':
                Buffer.from('CA').toString('base64'),
            },
          },
        ],
        users: [
          {
            name: 'backstage-gpu',
            user: {
              'client-certificate-data': Buffer.from('CERT').toString('base64'),
              'client-key-data': Buffer.from('KEY').toString('base64'),
            },
          },
        ],
        contexts: [
          {
            name: 'prod-eu',
            context: { cluster: 'prod-eu', user: 'backstage-gpu' },
          },
        ],
        'current-context': 'prod-eu',
      });
    });

    it('gives a service account token with its CA, and refuses a worker that skips TLS verification', () => {
      const config = parse(
        workerKubeconfig({
          name: 'dev',
          mode: 'apply',
          connection: {
            type: 'serviceAccount',
            url: 'https://10.0.0.1:6443',
            serviceAccountToken: 'tok',
            caData: 'Q0E=',
          },
        }),
      );
      expect(config.clusters[0].cluster).toEqual({
        server: 'https://10.0.0.1:6443',
        'certificate-authority-data': 'Q0E=',
      });
      expect(config.users[0].user).toEqual({ token: 'tok' });
      expect(() =>
        workerKubeconfig({
          name: 'dev',
          mode: 'apply',
          connection: {
            type: 'serviceAccount',
            url: 'https://10.0.0.1:6443',
            serviceAccountToken: 'tok',
            skipTLSVerify: true,
          },
        }),
      ).toThrow(
        "MultiKueue worker 'dev' skips TLS verification; Kueue refuses such a kubeconfig",
      );
    });
  });
});
