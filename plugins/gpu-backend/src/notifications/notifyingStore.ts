import { ServiceStatus } from '@gpu-platform/backstage-plugin-gpu-common';
import { GpuStore, ServiceRecord } from '../database';
import { GpuNotifier } from './GpuNotifier';

/** The notifier's calls this store makes (a {@link GpuNotifier}, or a fake in tests). */
export type ServiceEventsNotifier = Pick<
  GpuNotifier,
  'pendingApproval' | 'decided' | 'failed' | 'ready' | 'changed'
>;

/**
 * The store, telling `notifier` about every committed change of a service or a quota: each write of the lifecycle
 * (create, change, approval, status: by the routes, `ServiceManager`, the status refresh or the resume of
 * interrupted applies) goes through one of the store's write methods, so wrapping them here reports every change
 * exactly once, whichever caller made it, without each caller having to remember to. Reads and every other method
 * are the store's own.
 *
 * The notifier is called after the write has committed and is not awaited: a notification never slows down or fails
 * the change it reports (see {@link GpuNotifier}).
 */
export function notifyingStore(
  store: GpuStore,
  notifier: ServiceEventsNotifier,
): GpuStore {
  const report = (work: () => Promise<unknown>) => {
    // GpuNotifier never rejects; a fake that does must not become an unhandled rejection.
    work().catch(() => {});
  };
  const serviceChanged = (
    service: ServiceRecord,
    change: 'created' | 'changed' | 'status' | 'approval',
  ) =>
    report(() =>
      notifier.changed({
        kind: 'service',
        change,
        serviceId: service.id,
        team: service.team,
        status: service.status,
      }),
    );

  const overrides: Partial<GpuStore> = {
    async createServiceWithReservation(input) {
      const result = await store.createServiceWithReservation(input);
      if (result.created) {
        serviceChanged(result.service, 'created');
        if (
          result.service.status === 'pending-approval' &&
          result.approval?.state === 'pending'
        ) {
          const approval = result.approval;
          report(() => notifier.pendingApproval(result.service, approval));
        }
      }
      return result;
    },

    async replaceReservation(input) {
      const result = await store.replaceReservation(input);
      if (result.outcome === 'pending-approval') {
        serviceChanged(result.service, 'approval');
        report(() => notifier.pendingApproval(result.service, result.approval));
      } else {
        serviceChanged(result.service, 'changed');
      }
      return result;
    },

    async decideApproval(input) {
      const result = await store.decideApproval(input);
      serviceChanged(result.service, 'approval');
      report(() => notifier.decided(result.service, result.approval));
      return result;
    },

    async updateServiceStatus(input) {
      const service = await store.updateServiceStatus(input);
      // Every caller writes conditionally on the one status it read; without that the previous status is unknown.
      const before: ServiceStatus | undefined =
        input.expectedStatus?.length === 1
          ? input.expectedStatus[0]
          : undefined;
      serviceChanged(service, 'status');
      if (service.status !== before) {
        if (service.status === 'failed') {
          report(() => notifier.failed(service));
        } else if (service.status === 'ready') {
          report(() => notifier.ready(service));
        }
      }
      return service;
    },

    async releaseReservation(input) {
      const released = await store.releaseReservation(input);
      if (released) {
        report(() => notifier.changed({ kind: 'quota', team: released.team }));
      }
      return released;
    },

    async putQuota(input) {
      const quota = await store.putQuota(input);
      report(() => notifier.changed({ kind: 'quota', team: quota.team }));
      return quota;
    },
  };

  return new Proxy(store, {
    get(target, property, receiver) {
      if (Object.prototype.hasOwnProperty.call(overrides, property)) {
        return overrides[property as keyof GpuStore];
      }
      const value = Reflect.get(target, property, receiver);
      // The store's own methods run on the store itself (its private state), not on the proxy.
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
