import { BackstageCredentials } from '@backstage/backend-plugin-api';
import { NotAllowedError, ServiceUnavailableError } from '@backstage/errors';
import type { CatalogService } from '@backstage/plugin-catalog-node';
import {
  ownerGroupOf,
  teamGroupRef,
} from '@gpu-platform/backstage-plugin-gpu-common';

/** The catalog entity of a ref as the caller may see it (undefined when the catalog has none). */
export type ComponentSource = (
  entityRef: string,
  credentials: BackstageCredentials,
) => Promise<{ metadata: { namespace?: string }; spec?: unknown } | undefined>;

/** Components read from the catalog with the caller's credentials. */
export function catalogComponents(catalog: CatalogService): ComponentSource {
  return (entityRef, credentials) =>
    catalog.getEntityByRef(entityRef, { credentials });
}

/**
 * A service may be bound only to a component of its own team: when the catalog has `entityRef`, its `spec.owner`
 * must resolve to the team's Group (`group:default/<team>`), whoever asks (the platform team cannot bind a team's
 * service to another team's component either). A component the catalog does not have yet is accepted: the GPU
 * template creates the service before it registers the component, and the scaffolder module refuses to register it
 * over another team's (assertNoTakeover).
 *
 * @throws NotAllowedError (403) naming the owner, when the component is another team's or has no team owner.
 * @throws ServiceUnavailableError (503) when the catalog cannot be read, so nothing is bound unchecked.
 */
export async function assertComponentOfTeam(options: {
  components: ComponentSource;
  entityRef: string;
  team: string;
  credentials: BackstageCredentials;
}): Promise<void> {
  const { components, entityRef, team, credentials } = options;
  let entity: Awaited<ReturnType<ComponentSource>>;
  try {
    entity = await components(entityRef, credentials);
  } catch (error) {
    const unavailable = new ServiceUnavailableError(
      `The catalog could not be read to check who owns ${entityRef}; nothing was recorded, try again`,
    );
    // Kept for the log, out of the message the caller reads (it may name the catalog's address).
    Object.defineProperty(unavailable, 'cause', { value: error });
    throw unavailable;
  }
  if (!entity) return;
  const owner = ownerGroupOf(entity);
  const groupRef = teamGroupRef(team);
  if (owner !== groupRef) {
    throw new NotAllowedError(
      `${entityRef} is owned by ${
        owner ?? 'no group'
      }, not ${groupRef}: a GPU service of team ${team} can only be bound to one of its own components`,
    );
  }
}
