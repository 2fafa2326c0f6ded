import { GpuStore, ServiceRecord } from '../database';
import { notifyingStore, ServiceEventsNotifier } from './notifyingStore';

const service = {
  id: 's1',
  name: 'chat',
  team: 'ml-platform',
  status: 'starting',
} as ServiceRecord;

function setup(written: Partial<ServiceRecord>) {
  const notified = <K extends keyof ServiceEventsNotifier>() =>
    jest.fn<Promise<void>, Parameters<ServiceEventsNotifier[K]>>(
      async () => {},
    );
  const notifier = {
    pendingApproval: notified<'pendingApproval'>(),
    decided: notified<'decided'>(),
    failed: notified<'failed'>(),
    ready: notified<'ready'>(),
    changed: notified<'changed'>(),
  };
  class FakeStore {
    private writes = 0;
    async updateServiceStatus() {
      this.writes += 1;
      return { ...service, ...written };
    }
    async getService() {
      return { ...service, writes: this.writes };
    }
  }
  const inner = new FakeStore();
  const store = notifyingStore(inner as unknown as GpuStore, notifier);
  return { store, notifier, inner };
}

describe('notifyingStore', () => {
  it.each([
    ['ready', 'starting', 'ready'],
    ['failed', 'applying', 'failed'],
    ['failed', 'deleting', 'failed'],
  ] as const)(
    'tells a service that became %s (from %s)',
    async (status, before, method) => {
      const { store, notifier } = setup({ status });
      await store.updateServiceStatus({
        id: 's1',
        status,
        reason: status === 'ready' ? 'Available' : 'ApplyFailed',
        expectedStatus: [before],
        actor: 'system:test',
      });
      expect(notifier[method]).toHaveBeenCalledWith(
        expect.objectContaining({ id: 's1', status }),
      );
      expect(notifier.changed).toHaveBeenCalledWith({
        kind: 'service',
        change: 'status',
        serviceId: 's1',
        team: 'ml-platform',
        status,
      });
    },
  );

  it('does not tell again a status that did not change (a new reason), but signals it', async () => {
    const { store, notifier } = setup({ status: 'ready' });
    await store.updateServiceStatus({
      id: 's1',
      status: 'ready',
      reason: 'Available',
      statusReason: 'another reason',
      expectedStatus: ['ready'],
      actor: 'system:test',
    });
    expect(notifier.ready).not.toHaveBeenCalled();
    expect(notifier.changed).toHaveBeenCalledTimes(1);
  });

  it('passes every other method to the store itself', async () => {
    const { store, inner } = setup({ status: 'applying' });
    await store.updateServiceStatus({
      id: 's1',
      status: 'applying',
      reason: 'Applying',
      actor: 'system:test',
    });
    await expect(store.getService('s1')).resolves.toMatchObject({ writes: 1 });
    expect((inner as unknown as { writes: number }).writes).toBe(1);
  });

  it('never lets a failing notifier fail the write', async () => {
    const { store, notifier } = setup({ status: 'failed' });
    notifier.failed.mockRejectedValueOnce(new Error('down'));
    notifier.changed.mockRejectedValueOnce(new Error('down'));
    await expect(
      store.updateServiceStatus({
        id: 's1',
        status: 'failed',
        reason: 'ApplyFailed',
        expectedStatus: ['applying'],
        actor: 'system:test',
      }),
    ).resolves.toMatchObject({ status: 'failed' });
  });
});
