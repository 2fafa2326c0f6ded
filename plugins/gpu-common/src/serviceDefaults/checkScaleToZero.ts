import { GpuDomainError } from '../errors';
import { ServiceRequest } from '../service/types';
import { ServiceSettings } from './types';

/**
 * Refuses scale to zero (`autoscaling.minReplicas: 0`) unless something outside the service's pods can wake it: at
 * zero there are no pods, so a trigger on their own metrics (vLLM's queue depth) never fires again. Allowed with a
 * `scaleToZero` wake trigger in the effective `gpu.serviceDefaults` (KEDA's HTTP add-on or a gateway or queue
 * metric), on KEDA.
 *
 * @throws GpuDomainError `OUT_OF_RANGE` saying why and what to configure.
 * @public
 */
export function checkScaleToZero(
  request: Pick<ServiceRequest, 'autoscaling' | 'environment' | 'pool'>,
  settings: Pick<ServiceSettings, 'wakeTrigger'>,
): void {
  const autoscaling = request.autoscaling;
  if (!autoscaling || autoscaling.minReplicas > 0 || settings.wakeTrigger) {
    return;
  }
  throw new GpuDomainError(
    'OUT_OF_RANGE',
    `autoscaling.minReplicas 0 (scale to zero) needs a trigger outside the service's pods: at zero replicas nothing exports vllm:num_requests_waiting, so the service would never wake. Configure gpu.serviceDefaults.scaleToZero (or its byEnvironment.${
      request.environment
    }${
      request.pool ? ` or byPool.${request.pool}` : ''
    } override) as { httpAddOn: {} } for KEDA's HTTP add-on or { wakeQuery: "<PromQL on a gateway or queue metric with {{service}}>" }; allowed without it: minReplicas 1 or more`,
  );
}
