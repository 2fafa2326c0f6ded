import { EntityRefLink } from '@backstage/plugin-catalog-react';
import { ServiceCostSummary } from '@gpu-platform/backstage-plugin-gpu-common';

/** A leaderboard's service, `summariser (ml-serving)`, linked to its catalog entity when it has one. */
export function LeaderboardService(props: {
  row: Pick<ServiceCostSummary, 'entityRef'>;
  label: string;
}) {
  return props.row.entityRef ? (
    <EntityRefLink entityRef={props.row.entityRef} title={props.label} />
  ) : (
    <>{props.label}</>
  );
}
