import { Platform } from '../platform/types';
import { ServiceRequest } from '../service/types';
import { packPlannerItems } from './packPlannerItems';
import { plannerItemsFor } from './plannerItemFor';
import { PlacementPlan, PlannerItem } from './types';

/**
 * Packs many services onto the pools' physical GPUs and reports GPUs used against the bin-packing lower bound and
 * against running everything on dedicated GPUs.
 *
 * Each service takes the first of its options (for service requests: the cheapest slice its environment allows, see
 * {@link plannerItemFor}) whose pool has room for all its replicas. Dedicated replicas take whole GPUs on one node;
 * MIG replicas take compute slices (7, or 4 on an A30), memory slices and at most the profile's instances per GPU;
 * MPS and time-sliced replicas take 1/R and at most R per GPU; no GPU holds more memory than it has. Services are
 * packed first-fit decreasing (largest share first, each replica on the fullest GPU it fits); then each MIG pool's
 * replicas are repacked GPU layout by GPU layout when that takes fewer GPUs (profiles mixed on a GPU, e.g. one 1g.20gb
 * with six 1g.10gb, where first-fit decreasing gives each profile GPUs of its own).
 *
 * @throws GpuDomainError for unknown environments, models or pools, or options a pool cannot offer.
 * @public
 */
export function planPlacement(
  platform: Platform,
  services: readonly ServiceRequest[] | readonly PlannerItem[],
): PlacementPlan {
  const requests = services.filter(
    (service): service is ServiceRequest => !isPlannerItem(service),
  );
  const ranked = plannerItemsFor(platform, requests);
  let next = 0;
  const items = services.map(service =>
    isPlannerItem(service) ? service : ranked[next++],
  );
  return packPlannerItems(platform, items);
}

function isPlannerItem(
  service: ServiceRequest | PlannerItem,
): service is PlannerItem {
  return Array.isArray((service as PlannerItem).options);
}
