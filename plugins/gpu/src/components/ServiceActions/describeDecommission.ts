import { GpuServiceView } from '@gpu-platform/backstage-plugin-gpu-common';
import { formatGpuEquivalents } from '../common';
import { describePlacement } from '../GpuServiceCard/describeService';

/** What decommissioning a service frees, one sentence each (GPUs or slices, quota, monthly cost). */
export function describeDecommission(service: GpuServiceView): string[] {
  const approval = service.approval;
  if (service.status === 'pending-approval' && approval?.kind !== 'change') {
    return [
      `Withdraws the request waiting for approval: nothing is held, so no GPUs, quota or cost are freed.`,
      'The record and the audit trail are kept.',
    ];
  }
  const { placement, request } = service;
  const gpus = formatGpuEquivalents(service.gpuEquivalents);
  const replicas = `${request.replicas} replica${
    request.replicas === 1 ? '' : 's'
  }`;
  const slices =
    placement.tier === 'dedicated'
      ? `${placement.gpusPerReplica * request.replicas} whole GPU${
          placement.gpusPerReplica * request.replicas === 1 ? '' : 's'
        }`
      : `${request.replicas} ${
          placement.migProfile
            ? `MIG ${placement.migProfile} `
            : `${placement.tier} `
        }slice${request.replicas === 1 ? '' : 's'}`;
  return [
    `Frees ${slices} (${replicas}, ${describePlacement(service)})${
      service.mode === 'apply'
        ? ' and deletes its objects from the cluster'
        : ''
    }.`,
    `Releases ${gpus} GPU-equivalent${
      service.gpuEquivalents === 1 ? '' : 's'
    } of team ${service.team}'s quota on ${placement.pool}.`,
    `Stops ${service.monthlyCost} a month of allocation cost.`,
    // The template of the same name unregisters the component by default; this action does not, and says so.
    'The record and the audit trail are kept. Unlike the Decommission GPU model service template, this keeps the catalog component: unregister it from its page if it describes nothing else.',
  ];
}
