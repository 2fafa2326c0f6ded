import { Platform } from '@gpu-platform/backstage-plugin-gpu-common';
import { ownershipLabels } from '../labels';
import { Cohort } from './types';

/** The Cohort every team ClusterQueue joins, so unused quota can be borrowed and reclaimed. */
export function renderCohort(platform: Platform): Cohort {
  return {
    apiVersion: platform.kueue.apiVersion,
    kind: 'Cohort',
    metadata: {
      name: platform.kueue.cohort,
      labels: ownershipLabels('platform'),
    },
    spec: {},
  };
}
