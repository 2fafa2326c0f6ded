import {
  BackstageCredentials,
  UserInfoService,
} from '@backstage/backend-plugin-api';
import { ANNOTATION_LOCATION, Entity } from '@backstage/catalog-model';
import { NotAllowedError } from '@backstage/errors';
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

/** An entity already in the catalog that a team's GPU service may be bound to. */
export interface BindableEntity {
  entity: Entity;
  /**
   * Whether the entity is defined in the local catalog directory of the GPU templates (its file may be rewritten);
   * false for a team's component defined in another source (a repository's catalog-info.yaml, a config location),
   * which is bound as it is and never rewritten.
   */
  definedHere: boolean;
}

/**
 * Refuses to take over a catalog entity: when `entityRef` is already in the catalog (read with the initiator's
 * credentials), it must be owned by `ownerGroup` (its spec.owner resolves to that Group). A team's own component is
 * bindable wherever it is defined: the answer says whether it is defined in the local catalog directory of this
 * module (`backstage.io/managed-by-location` is a file in it), whose file may be rewritten, or elsewhere, where it
 * is left as it is. When the catalog does not show it (not read yet, or hidden from the user), a file for it in the
 * local catalog directory must be the team's. Answers undefined when there is no such entity.
 *
 * @throws NotAllowedError naming the owner when the entity is another team's.
 */
export async function assertNoTakeover(options: {
  catalog: CatalogService;
  localCatalog?: LocalCatalogDirectory;
  entityRef: string;
  ownerGroup: string;
  credentials: BackstageCredentials;
}): Promise<BindableEntity | undefined> {
  const { catalog, localCatalog, entityRef, ownerGroup, credentials } = options;
  const existing = await catalog.getEntityByRef(entityRef, { credentials });
  if (!existing) {
    // Not in the catalog, or not visible to the user: its file in the local directory, if any, must be the team's.
    await localCatalog?.assertWritable(entityRef, ownerGroup);
    return undefined;
  }
  if (ownerGroupOf(existing) !== ownerGroup) {
    throw new NotAllowedError(
      `${entityRef} is owned by ${ownerOf(
        existing,
      )}; a GPU service of ${ownerGroup} cannot be bound to it, and it cannot be registered for ${ownerGroup}: choose another name`,
    );
  }
  const managedBy = existing.metadata.annotations?.[ANNOTATION_LOCATION];
  return {
    entity: existing,
    definedHere: localCatalog?.owns(managedBy) !== undefined,
  };
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
