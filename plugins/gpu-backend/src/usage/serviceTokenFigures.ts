import {
  ServiceThroughput,
  ServiceTokenCosts,
  UsageWindow,
  UsdMicros,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { PrometheusClient, QueryResult } from '../metrics/PrometheusClient';
import { ServiceAllocation } from './AllocationReader';
import type { CapacitySource } from './measuredCapacities';
import { chargedSharePerReplica } from './measurement';
import { serviceSlice } from './serviceSlice';
import { serviceThroughput } from './serviceThroughput';
import { serviceTokenCosts } from './serviceTokenCosts';
import { UsageContext } from './usageContext';
import { unixSeconds } from './usageWindow';
import {
  completedRequestsQuery,
  phaseSecondsQuery,
  queryByTarget,
  sustainedThroughputQuery,
  VllmTarget,
  vllmKey,
} from './vllmQueries';

/** The four vLLM answers {@link serviceTokenFigures} reads, each undefined without Prometheus. */
export type ServiceTokenAnswers = Array<
  QueryResult<Map<string, number>> | undefined
>;

/**
 * Asks Prometheus for one service's sustained tokens/s, completed requests and prefill and decode seconds over the
 * window (four queries, through `client`: `/services/:id/cost` passes the request's own, so they run beside its
 * measurement's queries within one `concurrency.perRequest` share instead of after them).
 */
export function serviceTokenQueries(
  context: UsageContext,
  allocation: ServiceAllocation,
  window: UsageWindow,
  client: PrometheusClient | undefined,
): Promise<ServiceTokenAnswers> {
  const { service } = allocation;
  const target: VllmTarget = {
    namespace: service.namespace,
    modelName: service.request.name,
  };
  const end = unixSeconds(window.end);
  const ask = (promql: string) => {
    if (!client) return undefined;
    const run = () => queryByTarget(client, promql, end);
    return context.vllmQueries
      ? context.vllmQueries.get(promql, end, run)
      : run();
  };
  return Promise.all([
    ask(sustainedThroughputQuery([target], window.durationSeconds)),
    ask(completedRequestsQuery([target], window.durationSeconds)),
    ask(phaseSecondsQuery([target], window.durationSeconds, 'prefill')),
    ask(phaseSecondsQuery([target], window.durationSeconds, 'decode')),
  ]);
}

/**
 * The throughput and token figures of one service's cost over a window: its sustained tokens/s and completed
 * requests and the seconds its requests spent in prefill and decode from Prometheus (`answers` of
 * {@link serviceTokenQueries}), its prompt and generated tokens from the
 * window's measurement, and, only when it has no throughput of its own, the measured capacities of services of the
 * same model and slice shape (cached, see `MeasuredCapacities`). Without Prometheus (or when it fails) the figures fall back to the estimates.
 */
export async function serviceTokenFigures(options: {
  context: UsageContext;
  allocation: ServiceAllocation;
  window: UsageWindow;
  allocationMicros: UsdMicros;
  served?: { promptTokens?: number; generatedTokens?: number };
  /** Asked only when the service has no throughput measurement of its own. */
  capacities?: CapacitySource;
  /** The answers of {@link serviceTokenQueries}, asked beside the request's other queries. */
  answers: ServiceTokenAnswers;
}): Promise<{
  throughput?: ServiceThroughput;
  tokenCosts?: ServiceTokenCosts;
}> {
  const { context, allocation, window } = options;
  const { service } = allocation;
  const target: VllmTarget = {
    namespace: service.namespace,
    modelName: service.request.name,
  };
  const [sustained, requests, prefill, decode] = options.answers;
  const own = sustained?.ok ? sustained.data.get(vllmKey(target)) : undefined;
  const capacities =
    own !== undefined && own > 0
      ? undefined
      : await options.capacities?.current();
  const throughput = serviceThroughput({
    platform: context.platform,
    service,
    ...(own !== undefined
      ? {
          ownMeasured: {
            tokensPerSecond: own,
            source: {
              serviceId: service.id,
              service: service.name,
              windowStart: window.start,
              windowEnd: window.end,
            },
          },
        }
      : {}),
    capacities,
  });
  const slice = serviceSlice(context.platform, service);
  const completed = requests?.ok
    ? requests.data.get(vllmKey(target))
    : undefined;
  const prefillSeconds = prefill?.ok
    ? prefill.data.get(vllmKey(target))
    : undefined;
  const decodeSeconds = decode?.ok
    ? decode.data.get(vllmKey(target))
    : undefined;
  const tokenCosts = serviceTokenCosts({
    allocationMicros: options.allocationMicros,
    served: options.served,
    ...(completed !== undefined ? { requests: completed } : {}),
    ...(prefillSeconds !== undefined && decodeSeconds !== undefined
      ? { phases: { prefillSeconds, decodeSeconds } }
      : {}),
    throughput,
    price: context.prices.get(service.pool),
    ...(slice
      ? { sharePerReplica: chargedSharePerReplica(allocation, slice) }
      : {}),
  });
  return {
    ...(throughput ? { throughput } : {}),
    ...(tokenCosts ? { tokenCosts } : {}),
  };
}
