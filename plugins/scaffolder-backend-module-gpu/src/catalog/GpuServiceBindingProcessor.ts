import { Entity, stringifyEntityRef } from '@backstage/catalog-model';
import { CatalogProcessor } from '@backstage/plugin-catalog-node';
import { GPU_SERVICE_ID_ANNOTATION } from './serviceIdAnnotation';

/**
 * The id of the live GPU service bound to a catalog entity, or undefined when none is; throws when it cannot tell.
 *
 * @public
 */
export type GpuServiceBindingLookup = (
  entityRef: string,
) => Promise<string | undefined>;

/**
 * Gives a Component that a GPU service is bound to (the service's `entityRef`) the `gpu.backstage.io/service-id`
 * annotation, so that the GPU card shows on a team's own component wherever it is defined: in a repository's
 * catalog-info.yaml or a config location, which the GPU templates never rewrite. A Component that carries the
 * annotation already (written by the templates) is left as it is. While the gpu backend cannot answer, the last
 * answer for the entity stands, so its card does not flicker away.
 *
 * @public
 */
export class GpuServiceBindingProcessor implements CatalogProcessor {
  private readonly lookup: GpuServiceBindingLookup;
  private readonly lastKnown = new Map<string, string | undefined>();

  constructor(options: { lookup: GpuServiceBindingLookup }) {
    this.lookup = options.lookup;
  }

  getProcessorName(): string {
    return 'GpuServiceBindingProcessor';
  }

  async preProcessEntity(entity: Entity): Promise<Entity> {
    if (
      entity.kind.toLocaleLowerCase('en-US') !== 'component' ||
      entity.metadata.annotations?.[GPU_SERVICE_ID_ANNOTATION]
    ) {
      return entity;
    }
    const entityRef = stringifyEntityRef(entity);
    let serviceId: string | undefined;
    try {
      serviceId = await this.lookup(entityRef);
      this.lastKnown.set(entityRef, serviceId);
    } catch {
      serviceId = this.lastKnown.get(entityRef);
    }
    if (!serviceId) {
      return entity;
    }
    return {
      ...entity,
      metadata: {
        ...entity.metadata,
        annotations: {
          ...entity.metadata.annotations,
          [GPU_SERVICE_ID_ANNOTATION]: serviceId,
        },
      },
    };
  }
}
