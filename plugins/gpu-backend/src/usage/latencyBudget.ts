import {
  latencyBudgetStatus,
  ServiceRequest,
  ServiceUsage,
} from '@gpu-platform/backstage-plugin-gpu-common';

/**
 * A service's usage with its latency budget (when its request states one) against the window's measured p95
 * end-to-end latency, the `latency.p95Seconds` the usage views read from `vllm:e2e_request_latency_seconds`
 * (`collectMetrics.ts`): `within`, `over`, or `unknown` with the reason.
 */
export function withLatencyBudget(
  usage: ServiceUsage,
  request: Pick<ServiceRequest, 'latencyBudget'>,
): ServiceUsage {
  const budget = request.latencyBudget;
  if (!budget) return usage;
  return {
    ...usage,
    latencyBudget: latencyBudgetStatus(
      budget,
      usage.latency?.p95Seconds,
      usage.metrics.state,
    ),
  };
}
