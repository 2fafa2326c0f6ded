import { Entity } from '@backstage/catalog-model';

/**
 * Annotation on a catalog Component naming the gpu service (its id in the gpu backend) behind it.
 *
 * @public
 */
export const GPU_SERVICE_ID_ANNOTATION = 'gpu.backstage.io/service-id';

/** The gpu service id of an entity, if it carries the annotation. */
export function gpuServiceIdOf(entity: Entity): string | undefined {
  const id = entity.metadata.annotations?.[GPU_SERVICE_ID_ANNOTATION]?.trim();
  return id ? id : undefined;
}

/**
 * Whether the entity is a GPU model service (carries `gpu.backstage.io/service-id`). Use it with `EntitySwitch` in
 * legacy apps.
 *
 * @public
 */
export function isGpuServiceAvailable(entity: Entity): boolean {
  return gpuServiceIdOf(entity) !== undefined;
}
