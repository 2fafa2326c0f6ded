import { ConfigReader } from '@backstage/config';
import type { JsonObject } from '@backstage/types';
import { readReconcileSettings } from './readReconcileSettings';

const read = (reconcile?: JsonObject) =>
  readReconcileSettings(new ConfigReader({ gpu: { reconcile } }));

describe('readReconcileSettings', () => {
  it('delivers every part every 10 minutes unless configured', () => {
    expect(read()).toEqual({
      frequency: { minutes: 10 },
      deliver: ['gpuOperator', 'kueue', 'nodePools', 'alerts', 'nodeLabels'],
    });
  });

  it('keeps the listed parts, in delivery order', () => {
    expect(
      read({ frequency: 'PT2M', deliver: ['nodeLabels', 'kueue'] }),
    ).toEqual({ frequency: { minutes: 2 }, deliver: ['kueue', 'nodeLabels'] });
    expect(read({ deliver: [] }).deliver).toEqual([]);
  });

  it('names an unknown part and the known ones', () => {
    expect(() => read({ deliver: ['kueue', 'karpenter'] })).toThrow(
      'Invalid config at gpu.reconcile.deliver: unknown part karpenter; the parts are gpuOperator, kueue, nodePools, alerts, nodeLabels',
    );
  });

  it('refuses a frequency of zero', () => {
    expect(() => read({ frequency: { minutes: 0 } })).toThrow(
      /gpu.reconcile.frequency: must be longer than zero/,
    );
  });
});
