import { useApi } from '@backstage/frontend-plugin-api';
import {
  GpuServiceView,
  ServiceCost,
  ServiceUsage,
} from '@internal/backstage-plugin-gpu-common';
import useAsync from 'react-use/esm/useAsync';
import { gpuApiRef } from '../../api';

/** A value or why it could not be read. */
export type Outcome<T> = { value: T } | { error: Error };

/** What the card shows, loaded in two steps: the service, then its usage and cost for the window. */
export interface GpuServiceData {
  service: { loading: boolean; value?: GpuServiceView; error?: Error };
  figures: {
    loading: boolean;
    usage?: Outcome<ServiceUsage>;
    cost?: Outcome<ServiceCost>;
  };
}

function outcome<T>(result: PromiseSettledResult<T>): Outcome<T> {
  return result.status === 'fulfilled'
    ? { value: result.value }
    : {
        error:
          result.reason instanceof Error
            ? result.reason
            : new Error(String(result.reason)),
      };
}

/**
 * Loads a gpu service and, once it exists, its usage and cost over `usageWindow`. Usage and cost fail independently:
 * cost (allocation) stays on screen when usage cannot be read.
 */
export function useGpuServiceData(
  serviceId: string,
  usageWindow: string,
): GpuServiceData {
  const gpuApi = useApi(gpuApiRef);
  const service = useAsync(
    () => gpuApi.getService(serviceId),
    [gpuApi, serviceId],
  );
  const figures = useAsync(async () => {
    if (!service.value) return undefined;
    const [usage, cost] = await Promise.allSettled([
      gpuApi.getServiceUsage(serviceId, usageWindow),
      gpuApi.getServiceCost(serviceId, usageWindow),
    ]);
    return { usage: outcome(usage), cost: outcome(cost) };
  }, [gpuApi, serviceId, usageWindow, service.value]);
  return {
    service: {
      loading: service.loading,
      value: service.value,
      error: service.error,
    },
    figures: {
      loading: service.loading || figures.loading,
      usage: figures.value?.usage,
      cost: figures.value?.cost,
    },
  };
}
