import { compareManagedFields } from './compareManagedFields';

describe('compareManagedFields', () => {
  const desired = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'x', labels: { 'app.kubernetes.io/name': 'x' } },
    spec: {
      replicas: 2,
      template: {
        spec: {
          containers: [
            {
              name: 'vllm',
              args: ['--model', 'm'],
              env: [{ name: 'A', value: '1' }],
              resources: {
                limits: { memory: '1Gi', cpu: '500m', 'nvidia.com/gpu': 1 },
              },
            },
          ],
          tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists' }],
        },
      },
    },
  };

  it('ignores what the server adds and equal quantities written differently', () => {
    const live = structuredClone(desired) as any;
    live.metadata.uid = 'u';
    live.metadata.labels.extra = 'y';
    live.status = { replicas: 2 };
    live.spec.strategy = { type: 'RollingUpdate' };
    live.spec.template.spec.containers[0].env.unshift({
      name: 'INJECTED',
      value: 'z',
    });
    live.spec.template.spec.containers[0].terminationMessagePath =
      '/dev/termination-log';
    live.spec.template.spec.containers[0].resources.limits = {
      memory: '1024Mi',
      cpu: '0.5',
      'nvidia.com/gpu': '1',
    };
    expect(compareManagedFields(desired, live)).toEqual([]);
  });

  it('reports changed, missing and reordered managed fields by path', () => {
    const live = structuredClone(desired) as any;
    live.spec.replicas = 0;
    live.spec.template.spec.containers[0].args = ['--model', 'm', '--extra'];
    live.spec.template.spec.containers[0].env = [];
    live.spec.template.spec.containers[0].resources.limits.memory = '2Gi';
    live.spec.template.spec.tolerations = [
      { key: 'other', operator: 'Exists' },
    ];
    delete live.metadata.labels;

    expect(compareManagedFields(desired, live)).toEqual([
      {
        path: 'metadata.labels',
        expected: { 'app.kubernetes.io/name': 'x' },
        actual: undefined,
      },
      { path: 'spec.replicas', expected: 2, actual: 0 },
      {
        path: 'spec.template.spec.containers[name=vllm].args',
        expected: ['--model', 'm'],
        actual: ['--model', 'm', '--extra'],
      },
      {
        path: 'spec.template.spec.containers[name=vllm].env[name=A]',
        expected: { name: 'A', value: '1' },
        actual: undefined,
      },
      {
        path: 'spec.template.spec.containers[name=vllm].resources.limits.memory',
        expected: '1Gi',
        actual: '2Gi',
      },
      {
        path: 'spec.template.spec.tolerations[0].key',
        expected: 'nvidia.com/gpu',
        actual: 'other',
      },
    ]);
  });
});
