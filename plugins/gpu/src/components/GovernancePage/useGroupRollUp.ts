import { useApi } from '@backstage/frontend-plugin-api';
import { catalogApiRef } from '@backstage/plugin-catalog-react';
import {
  catalogGroupOf,
  groupHierarchy,
  OverviewSummary,
  rollUpGroupCosts,
  teamGroupRef,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { useMemo } from 'react';
import useAsync from 'react-use/esm/useAsync';

/**
 * The overview's month-to-date cost per team rolled up the catalog's group hierarchy: the Group entities are read
 * once (only the fields the hierarchy needs), then combined with each overview.
 */
export function useGroupRollUp(overview: OverviewSummary) {
  const catalogApi = useApi(catalogApiRef);
  const groups = useAsync(async () => {
    const { items } = await catalogApi.getEntities({
      filter: { kind: 'Group' },
      fields: [
        'kind',
        'metadata.name',
        'metadata.namespace',
        'spec.parent',
        'spec.children',
      ],
    });
    return groupHierarchy(items.map(catalogGroupOf));
  }, [catalogApi]);
  const rollUp = useMemo(
    () =>
      groups.value
        ? rollUpGroupCosts(
            groups.value,
            new Map(
              overview.teams.map(t => [
                teamGroupRef(t.team),
                t.monthToDateMicros,
              ]),
            ),
          )
        : undefined,
    [overview, groups.value],
  );
  return { rollUp, loading: groups.loading, error: groups.error };
}
