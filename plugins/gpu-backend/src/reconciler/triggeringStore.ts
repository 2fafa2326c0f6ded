import { GpuStore } from '../database';
import { LoopTrigger } from './LoopTrigger';

/** The loops a write can start early: their scheduled task ids. */
export interface TriggeredLoops {
  /** The platform reconcile (Kueue quotas, flavors, queues): after a quota change or an approval decision. */
  platform: string;
  /** The service loops (apply of approved services, status refresh): after a service write; absent without them. */
  services?: string[];
}

/**
 * The store, starting the loops that drive the cluster towards what a committed write changed: a quota change or an
 * approval reconciles Kueue now, and an approval or a change of a service starts the service loops, instead of each
 * waiting for its next period. Like `notifyingStore`, it wraps the store's write methods, so every caller (routes,
 * actions, the lifecycle) triggers without having to remember to.
 */
export function triggeringStore(
  store: GpuStore,
  trigger: LoopTrigger,
  loops: TriggeredLoops,
): GpuStore {
  const services = loops.services ?? [];
  const overrides: Partial<GpuStore> = {
    async putQuota(input) {
      const quota = await store.putQuota(input);
      trigger.trigger(loops.platform, ...services);
      return quota;
    },

    async decideApproval(input) {
      const result = await store.decideApproval(input);
      trigger.trigger(loops.platform, ...services);
      return result;
    },

    async releaseReservation(input) {
      const released = await store.releaseReservation(input);
      if (released) trigger.trigger(loops.platform);
      return released;
    },
  };

  return new Proxy(store, {
    get(target, property, receiver) {
      if (Object.prototype.hasOwnProperty.call(overrides, property)) {
        return overrides[property as keyof GpuStore];
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
