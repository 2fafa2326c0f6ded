import { ServiceStatus } from './types';

/**
 * The signals channel (`@backstage/plugin-signals`) on which the gpu backend announces every change of a GPU model
 * service (created, status changed, changed, approval decided) and of a team's quota, so that open pages read them
 * again instead of polling.
 *
 * @public
 */
export const GPU_SERVICE_CHANGES_CHANNEL = 'gpu:service-changes';

/**
 * What changed, as published on {@link GPU_SERVICE_CHANGES_CHANNEL} (broadcast to every signed-in user). Ids and
 * names only: a page that cares reads the service or quota again through the gpu API, with its own permissions.
 *
 * @public
 */
export type GpuServiceChangeSignal =
  | {
      kind: 'service';
      /** `created`, `changed` (tier, pool, replicas or model), `status` or `approval` (decided or requested). */
      change: 'created' | 'changed' | 'status' | 'approval';
      serviceId: string;
      team: string;
      status: ServiceStatus;
    }
  | {
      kind: 'quota';
      team: string;
    };
