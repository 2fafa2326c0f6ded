import { GpuServiceView } from '@gpu-platform/backstage-plugin-gpu-common';
import { formatGpuEquivalents } from '../common';

/** What a request asks for: `llama-3.1-8b, dedicated on l4-ondemand, 2 replicas (2 GPU-equivalents), production`. */
export function describeRequest(service: GpuServiceView): string {
  const { placement, request } = service;
  const slice = placement.migProfile ? ` ${placement.migProfile}` : '';
  const replicas = `${request.replicas} replica${
    request.replicas === 1 ? '' : 's'
  }`;
  const equivalents = `${formatGpuEquivalents(
    service.gpuEquivalents,
  )} GPU-equivalent${service.gpuEquivalents === 1 ? '' : 's'}`;
  return `${request.model}, ${placement.tier}${slice} on ${placement.pool}, ${replicas} (${equivalents}), ${service.environment}`;
}
