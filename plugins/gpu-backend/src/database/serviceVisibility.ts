import { PermissionCriteria } from '@backstage/plugin-permission-common';
import {
  isAndCriteria,
  isNotCriteria,
  isOrCriteria,
} from '@backstage/plugin-permission-node';
import { GpuServiceQuery } from '@gpu-platform/backstage-plugin-gpu-node';
import { Knex } from 'knex';

const COLUMNS: Record<GpuServiceQuery['property'], string> = {
  team: 'team',
  environment: 'environment',
  pool: 'pool',
  tier: 'tier',
};

/**
 * Narrows a query of the `services` table (or one joined to it under `table`) to the services a permission filter
 * allows: the filter of a conditional decision on a `gpu-service` permission, translated by the plugin's rules.
 */
export function whereServiceVisible(
  builder: Knex.QueryBuilder,
  filter: PermissionCriteria<GpuServiceQuery>,
  table = 'services',
): void {
  if (isAndCriteria(filter)) {
    builder.where(all => {
      for (const criterion of filter.allOf) {
        all.andWhere(one => whereServiceVisible(one, criterion, table));
      }
    });
  } else if (isOrCriteria(filter)) {
    builder.where(any => {
      for (const criterion of filter.anyOf) {
        any.orWhere(one => whereServiceVisible(one, criterion, table));
      }
    });
  } else if (isNotCriteria(filter)) {
    builder.whereNot(not => whereServiceVisible(not, filter.not, table));
  } else {
    builder.whereIn(`${table}.${COLUMNS[filter.property]}`, filter.values);
  }
}
