import { registerMswTestHooks } from '@backstage/backend-test-utils';
import { setupServer } from 'msw/node';
import { fakeKubernetesApi } from '../cluster/__testUtils__/fakeKubernetesApi';
import { KubernetesApplier, KubernetesClientFactory } from '../cluster';
import { nodeLabelObjects } from './nodeLabelObjects';

const BASE = 'https://k8s.test:6443';
const server = setupServer();
registerMswTestHooks(server);

function setup(nodes: Record<string, Record<string, string>>) {
  const api = fakeKubernetesApi(BASE);
  server.use(...api.handlers);
  for (const [name, labels] of Object.entries(nodes)) {
    api.put({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels } });
  }
  const applier = new KubernetesApplier({
    cluster: 'gpu-eu',
    client: new KubernetesClientFactory().forCluster('gpu-eu', {
      type: 'serviceAccount',
      url: BASE,
      serviceAccountToken: 'sa-token',
    }),
    retry: { maxAttempts: 1 },
  });
  return { api, applier };
}

const plugin = 'nvidia.com/device-plugin.config';

describe('nodeLabelObjects', () => {
  it("gives each node its pool's config labels only, and leaves nodes of no pool alone", async () => {
    const { applier } = setup({
      'l4-a': { pool: 'l4', zone: 'a' },
      'l4-b': { pool: 'l4', zone: 'b' },
      't4-a': { pool: 't4' },
      cpu: { pool: 'cpu' },
    });
    const { objects, undelivered } = await nodeLabelObjects(applier, [
      { pool: 'l4', selector: { pool: 'l4' }, labels: { [plugin]: 'default' } },
      {
        pool: 't4',
        selector: { pool: 't4' },
        labels: { [plugin]: 'time-slicing-4' },
      },
    ]);
    expect(undelivered).toEqual([]);
    expect(objects).toEqual([
      node('l4-a', { [plugin]: 'default' }),
      node('l4-b', { [plugin]: 'default' }),
      node('t4-a', { [plugin]: 'time-slicing-4' }),
    ]);
  });

  it('reports a node two pools with different configs select, and labels it when they agree', async () => {
    const { applier } = setup({
      shared: { gpu: 'l4', capacity: 'spot' },
      other: { gpu: 'l4', capacity: 'on-demand' },
      agreed: { gpu: 't4', capacity: 'spot' },
    });
    const { objects, undelivered } = await nodeLabelObjects(applier, [
      { pool: 'l4', selector: { gpu: 'l4' }, labels: { [plugin]: 'default' } },
      {
        pool: 'spot-mps',
        selector: { capacity: 'spot' },
        labels: { [plugin]: 'mps-4' },
      },
      {
        pool: 'spot-l4',
        selector: { capacity: 'spot' },
        labels: { [plugin]: 'mps-4' },
      },
    ]);
    expect(objects).toEqual([
      node('other', { [plugin]: 'default' }),
      node('agreed', { [plugin]: 'mps-4' }),
    ]);
    expect(undelivered).toEqual([
      {
        apiVersion: 'v1',
        kind: 'Node',
        name: 'shared',
        reason: 'conflicting-pools',
        message: expect.stringMatching(
          /^Node shared carries the node labels of pools l4 and spot-mps and spot-l4, which need different/,
        ),
      },
    ]);
  });

  it('reports a pool with nothing to find its nodes by instead of labelling every node', async () => {
    const { api, applier } = setup({ a: {}, b: { pool: 'x' } });
    const { objects, undelivered } = await nodeLabelObjects(applier, [
      { pool: 'bare', selector: {}, labels: { [plugin]: 'mps-4' } },
    ]);
    expect(objects).toEqual([]);
    expect(undelivered).toEqual([
      expect.objectContaining({
        kind: 'Node',
        name: '(nodes of pool bare)',
        reason: 'no-node-selector',
        message: expect.stringContaining(
          `label them ${plugin}=mps-4 yourself and leave nodeLabels out of gpu.reconcile.deliver`,
        ),
      }),
    ]);
    expect(api.requests).toEqual([]);
  });
});

function node(name: string, labels: Record<string, string>) {
  return { apiVersion: 'v1', kind: 'Node', metadata: { name, labels } };
}
