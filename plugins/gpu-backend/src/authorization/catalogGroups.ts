import {
  CatalogGroup,
  catalogGroupOf,
} from '@gpu-platform/backstage-plugin-gpu-common';
import type { CatalogService } from '@backstage/plugin-catalog-node';
import type { GroupSource } from './AuthorizedUsage';

/** Every Group entity of the catalog, as the caller may see them, with only the fields a roll-up needs. */
export function catalogGroups(catalog: CatalogService): GroupSource {
  return async credentials => {
    const { items } = await catalog.getEntities(
      {
        filter: { kind: 'Group' },
        fields: [
          'kind',
          'metadata.name',
          'metadata.namespace',
          'spec.parent',
          'spec.children',
        ],
      },
      { credentials },
    );
    return items.map(catalogGroupOf) as CatalogGroup[];
  };
}
