import {
  GpuServiceView,
  parseUsd,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { formatGpuEquivalents } from '../common';

/** `dedicated on l4-ondemand`, `mig 1g.10gb on a100-mig`. */
export function describePlacement(service: GpuServiceView): string {
  const { placement } = service;
  let slice = '';
  if (placement.tier === 'dedicated' && placement.gpusPerReplica > 1) {
    slice = ` x${placement.gpusPerReplica}`;
  } else if (placement.migProfile) {
    slice = ` ${placement.migProfile}`;
  }
  return `${placement.tier}${slice} on ${placement.pool}`;
}

/** One line under the card title: placement, size, environment and status. */
export function describeService(service: GpuServiceView): string {
  const replicas = service.request.replicas;
  return [
    describePlacement(service),
    `${replicas} replica${replicas === 1 ? '' : 's'}, ${formatGpuEquivalents(
      service.gpuEquivalents,
    )} GPU-equivalent${service.gpuEquivalents === 1 ? '' : 's'}`,
    service.environment,
    `${service.status}${service.mode === 'dry-run' ? ' (dry-run)' : ''}`,
  ].join(' · ');
}

/** The service's monthly cost (`"$587.50"`, as the API formats it) in micros. */
export function monthlyCostMicros(service: GpuServiceView): number {
  return parseUsd(service.monthlyCost.replace(/[$,]/g, ''));
}
