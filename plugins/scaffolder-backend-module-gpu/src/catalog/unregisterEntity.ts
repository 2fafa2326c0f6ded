import {
  BackstageCredentials,
  LoggerService,
} from '@backstage/backend-plugin-api';
import {
  ANNOTATION_LOCATION,
  ANNOTATION_ORIGIN_LOCATION,
} from '@backstage/catalog-model';
import { CatalogService } from '@backstage/plugin-catalog-node';
import { LocalCatalogDirectory } from './LocalCatalogDirectory';

/** What unregistering did: removed, was not registered, or kept because its source is read by a wider location. */
export type UnregisterOutcome = 'removed' | 'not-registered' | 'kept';

/**
 * Removes an entity from the catalog the way its source allows: a file in the local catalog directory is deleted
 * (and the directory's location refreshed) before the entity is removed, so it does not come back; a location
 * registered for the entity's own file is removed with its entities. An entity defined in a location that holds
 * more than it (a config location, a multi-entity file) is kept, with the reason logged: removing it there is a
 * change to that source.
 */
export async function unregisterEntity(options: {
  catalog: CatalogService;
  localCatalog?: LocalCatalogDirectory;
  entityRef: string;
  credentials: BackstageCredentials;
  logger: LoggerService;
}): Promise<UnregisterOutcome> {
  const { catalog, localCatalog, entityRef, credentials, logger } = options;
  const entity = await catalog.getEntityByRef(entityRef, { credentials });
  if (!entity) {
    logger.info(`${entityRef} is not in the catalog; nothing to unregister`);
    return 'not-registered';
  }
  const managedBy = entity.metadata.annotations?.[ANNOTATION_LOCATION];
  const origin = entity.metadata.annotations?.[ANNOTATION_ORIGIN_LOCATION];

  const localFile = localCatalog?.owns(managedBy);
  if (localCatalog && localFile) {
    await localCatalog.remove(localFile);
    await catalog.refreshEntity(localCatalog.locationEntityRef, {
      credentials,
    });
    await catalog.removeEntityByUid(entity.metadata.uid!, { credentials });
    logger.info(
      `Unregistered ${entityRef}: removed ${localFile} from the local catalog directory`,
    );
    return 'removed';
  }

  const location = origin
    ? await catalog.getLocationByRef(origin, { credentials })
    : undefined;
  if (location && `${location.type}:${location.target}` === managedBy) {
    await catalog.removeLocationById(location.id, { credentials });
    logger.info(`Unregistered ${entityRef}: removed its location ${origin}`);
    return 'removed';
  }
  logger.warn(
    `${entityRef} is defined in ${managedBy} (read through ${origin}); remove it there to unregister it`,
  );
  return 'kept';
}
