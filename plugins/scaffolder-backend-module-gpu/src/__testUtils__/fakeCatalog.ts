import {
  ANNOTATION_LOCATION,
  ANNOTATION_ORIGIN_LOCATION,
  Entity,
  KubernetesValidatorFunctions,
  parseEntityRef,
  stringifyEntityRef,
} from '@backstage/catalog-model';
import { CatalogService } from '@backstage/plugin-catalog-node';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import yaml from 'yaml';
import { LocalCatalogDirectory } from '../catalog/LocalCatalogDirectory';

/**
 * An in-memory catalog with the behaviour the gpu actions rely on: refreshing the local directory's location
 * re-reads its files (adding new entities, dropping those whose file is gone, as orphan deletion would), locations
 * registered through the API remove their entities with them. Every call is recorded in `calls`.
 */
export function fakeCatalog(localCatalog?: LocalCatalogDirectory) {
  const entities = new Map<string, Entity>();
  const locations = new Map<
    string,
    { id: string; type: string; target: string; entityRef: string }
  >();
  const calls: string[] = [];

  function add(entity: Entity, managedBy: string, origin = managedBy) {
    const withMeta: Entity = {
      ...entity,
      metadata: {
        ...entity.metadata,
        namespace: entity.metadata.namespace ?? 'default',
        uid: randomUUID(),
        annotations: {
          ...entity.metadata.annotations,
          [ANNOTATION_LOCATION]: managedBy,
          [ANNOTATION_ORIGIN_LOCATION]: origin,
        },
      },
    };
    entities.set(stringifyEntityRef(withMeta), withMeta);
  }

  function readLocalDirectory() {
    if (!localCatalog) return;
    const origin = `file:${localCatalog.locationTarget}`;
    for (const [ref, entity] of entities) {
      if (entity.metadata.annotations?.[ANNOTATION_ORIGIN_LOCATION] === origin)
        entities.delete(ref);
    }
    if (!fs.existsSync(localCatalog.directory)) return;
    for (const name of fs
      .readdirSync(localCatalog.directory)
      .filter(n => n.endsWith('.yaml'))) {
      const file = path.join(localCatalog.directory, name);
      add(yaml.parse(fs.readFileSync(file, 'utf8')), `file:${file}`, origin);
    }
  }

  const service: Partial<CatalogService> = {
    async getEntityByRef(ref) {
      calls.push(`getEntityByRef ${ref}`);
      return entities.get(stringifyEntityRef(parseEntityRef(ref as string)));
    },
    async validateEntity(entity) {
      calls.push(`validateEntity ${entity.metadata?.name}`);
      const valid = KubernetesValidatorFunctions.isValidObjectName(
        entity.metadata?.name,
      );
      return valid
        ? { valid: true }
        : {
            valid: false,
            errors: [
              { name: 'InputError', message: `"metadata.name" is not valid` },
            ],
          };
    },
    async refreshEntity(ref) {
      calls.push(`refreshEntity ${ref}`);
      if (localCatalog && ref === localCatalog.locationEntityRef)
        readLocalDirectory();
    },
    async removeEntityByUid(uid) {
      calls.push(`removeEntityByUid ${uid}`);
      for (const [ref, entity] of entities) {
        if (entity.metadata.uid === uid) entities.delete(ref);
      }
    },
    async getLocationByRef(locationRef) {
      calls.push(`getLocationByRef ${locationRef}`);
      return [...locations.values()].find(
        l => `${l.type}:${l.target}` === locationRef,
      );
    },
    async removeLocationById(id) {
      calls.push(`removeLocationById ${id}`);
      const location = locations.get(id)!;
      locations.delete(id);
      for (const [ref, entity] of entities) {
        if (
          entity.metadata.annotations?.[ANNOTATION_ORIGIN_LOCATION] ===
          `${location.type}:${location.target}`
        ) {
          entities.delete(ref);
        }
      }
    },
  };

  return {
    catalog: service as CatalogService,
    entities,
    calls,
    /** Adds an entity defined at `managedBy` (a location ref), optionally as a location registered through the API. */
    seed(
      entity: Entity,
      managedBy: string,
      options: { registeredLocation?: boolean } = {},
    ) {
      add(entity, managedBy);
      if (options.registeredLocation) {
        const [type, ...rest] = managedBy.split(':');
        const id = randomUUID();
        locations.set(id, {
          id,
          type,
          target: rest.join(':'),
          entityRef: stringifyEntityRef(entity),
        });
      }
    },
  };
}
