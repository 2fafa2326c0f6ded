import {
  BackstageCredentials,
  UserInfoService,
} from '@backstage/backend-plugin-api';
import { ANNOTATION_LOCATION, Entity } from '@backstage/catalog-model';
import { ConflictError, NotAllowedError } from '@backstage/errors';
import { CatalogService } from '@backstage/plugin-catalog-node';
import { ownerGroupOf } from '@gpu-platform/backstage-plugin-gpu-common';
import { LocalCatalogDirectory } from './LocalCatalogDirectory';

/** How an existing entity's owner reads in an error: the ref it resolves to, or what spec.owner says. */
function ownerOf(entity: Entity): string {
  const owner = (entity.spec as { owner?: unknown } | undefined)?.owner;
  return (
    ownerGroupOf(entity) ??
    (typeof owner === 'string' && owner
      ? JSON.stringify(owner.slice(0, 253))
      : 'nobody')
  );
}

/**
 * Refuses to take over a catalog entity: when `entityRef` is already in the catalog (read with the initiator's
 * credentials), it must be owned by `ownerGroup` (its spec.owner resolves to that Group) and be managed by the local
 * catalog directory of this module (`backstage.io/managed-by-location` is a file in it), so that re-registering a
 * team's own component stays possible and nobody rewrites another team's, or one defined in another source. When
 * the catalog does not show it (not read yet, or hidden from the user), a file for it in the local catalog directory
 * must be the team's. Answers the existing entity, undefined when there is none.
 *
 * @throws ConflictError naming the owner (and the source when it is not the local catalog directory).
 */
export async function assertNoTakeover(options: {
  catalog: CatalogService;
  localCatalog?: LocalCatalogDirectory;
  entityRef: string;
  ownerGroup: string;
  credentials: BackstageCredentials;
}): Promise<Entity | undefined> {
  const { catalog, localCatalog, entityRef, ownerGroup, credentials } = options;
  const existing = await catalog.getEntityByRef(entityRef, { credentials });
  if (!existing) {
    // Not in the catalog, or not visible to the user: its file in the local directory, if any, must be the team's.
    await localCatalog?.assertWritable(entityRef, ownerGroup);
    return undefined;
  }
  const owner = ownerGroupOf(existing);
  if (owner !== ownerGroup) {
    throw new ConflictError(
      `${entityRef} is already in the catalog, owned by ${ownerOf(
        existing,
      )}; it cannot be registered or bound to a GPU service for ${ownerGroup}: choose another name`,
    );
  }
  const managedBy = existing.metadata.annotations?.[ANNOTATION_LOCATION];
  if (!localCatalog?.owns(managedBy)) {
    throw new ConflictError(
      `${entityRef} is already in the catalog, defined in ${
        managedBy ?? 'an unknown location'
      } (owned by ${owner}), not in the local catalog directory of the GPU templates` +
        `${
          localCatalog ? ` (${localCatalog.directory})` : ''
        }; choose another name, or change it where it is defined`,
    );
  }
  return existing;
}

/**
 * Users may only register entities for teams they belong to: the initiator's ownership refs (from the user info
 * service, as the gpu backend checks team membership) must contain `groupRef`. Other principals (a backend acting
 * as itself) are not users and are let through, as the gpu backend does.
 *
 * @throws NotAllowedError naming the user and the group.
 */
export async function assertMemberOf(options: {
  userInfo: UserInfoService;
  credentials: BackstageCredentials;
  groupRef: string;
}): Promise<void> {
  const { userInfo, credentials, groupRef } = options;
  if ((credentials.principal as { type?: string }).type !== 'user') {
    return;
  }
  const info = await userInfo.getUserInfo(credentials);
  if (
    !info.ownershipEntityRefs
      .map(r => r.toLocaleLowerCase('en-US'))
      .includes(groupRef)
  ) {
    throw new NotAllowedError(
      `${info.userEntityRef} is not a member of ${groupRef} and cannot register entities owned by it`,
    );
  }
}
