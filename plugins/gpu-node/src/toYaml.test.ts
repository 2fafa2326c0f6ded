import { parseAllDocuments } from 'yaml';
import { sortForApply } from './sortForApply';
import { toYaml } from './toYaml';

describe('toYaml and sortForApply', () => {
  const objects = [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'b', namespace: 'x' },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'b', namespace: 'x' },
    },
    {
      apiVersion: 'kueue.x-k8s.io/v1beta2',
      kind: 'LocalQueue',
      metadata: { name: 'q', namespace: 'x' },
    },
    {
      apiVersion: 'kueue.x-k8s.io/v1beta2',
      kind: 'ClusterQueue',
      metadata: { name: 'q' },
    },
    { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } },
    {
      apiVersion: 'kueue.x-k8s.io/v1beta2',
      kind: 'ResourceFlavor',
      metadata: { name: 'z' },
    },
    {
      apiVersion: 'kueue.x-k8s.io/v1beta2',
      kind: 'ResourceFlavor',
      metadata: { name: 'a' },
    },
  ];

  it('orders platform objects before team objects before the workload, unknown kinds last', () => {
    expect(
      sortForApply(objects).map(o => `${o.kind}/${o.metadata.name}`),
    ).toEqual([
      'ResourceFlavor/a',
      'ResourceFlavor/z',
      'ClusterQueue/q',
      'LocalQueue/q',
      'Service/b',
      'Deployment/b',
      'Widget/w',
    ]);
    expect(objects[0].kind).toBe('Deployment'); // the input is not mutated
  });

  it('writes one YAML document per object, quoting strings that look like numbers', () => {
    const text = toYaml([
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'a' },
        data: { replicas: '4' },
      } as any,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b' } },
    ]);
    expect(text).toBe(
      [
        '---',
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata:',
        '  name: a',
        'data:',
        '  replicas: "4"',
        '---',
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata:',
        '  name: b',
        '',
      ].join('\n'),
    );
    expect(parseAllDocuments(text).map(d => d.toJS())[0].data.replicas).toBe(
      '4',
    );
    expect(toYaml([])).toBe('');
  });
});
