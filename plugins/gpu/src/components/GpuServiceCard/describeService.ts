import {
  GpuServiceView,
  parseUsd,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { describeServiceState, formatGpuEquivalents } from '../common';

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

/** `2 replicas`, or an autoscaled service's range: `0 to 2 replicas`. */
function replicasText(service: GpuServiceView): string {
  const autoscaling = service.request.autoscaling;
  if (autoscaling) {
    return `${autoscaling.minReplicas} to ${autoscaling.maxReplicas} replicas`;
  }
  const replicas = service.request.replicas;
  return `${replicas} replica${replicas === 1 ? '' : 's'}`;
}

/**
 * One line under the card title: placement, size (the replica range of an autoscaled service; the GPU-equivalents
 * are what its reservation holds), environment and status in words.
 */
export function describeService(service: GpuServiceView): string {
  return [
    describePlacement(service),
    `${replicasText(service)}, ${formatGpuEquivalents(
      service.gpuEquivalents,
    )} GPU-equivalent${service.gpuEquivalents === 1 ? '' : 's'}`,
    service.environment,
    describeServiceState(service.status, service.mode),
  ].join(' · ');
}

/** The service's monthly cost (`"$587.50"`, as the API formats it) in micros. */
export function monthlyCostMicros(service: GpuServiceView): number {
  return parseUsd(service.monthlyCost.replace(/[$,]/g, ''));
}
