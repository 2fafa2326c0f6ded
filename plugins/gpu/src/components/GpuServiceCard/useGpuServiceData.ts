import { useApi } from '@backstage/frontend-plugin-api';
import {
  GpuServiceDetail,
  ServiceCost,
  ServiceStatus,
  ServiceUsage,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { useEffect, useRef, useState } from 'react';
import useAsync from 'react-use/esm/useAsync';
import { gpuApiRef } from '../../api';
import { useGpuChanges } from '../common';
import { describeLifecycle } from './describeLifecycle';

/** A value or why it could not be read. */
export type Outcome<T> = { value: T } | { error: Error };

/** How often the card reads the service again while it is on its way to the cluster. */
export const SERVICE_POLL_INTERVAL_MS = 5_000;

/**
 * Statuses that change without anyone acting (the reconciler's apply or teardown, Kueue admission, the rollout): the
 * card polls in them.
 */
export const POLLED_STATUSES: readonly ServiceStatus[] = [
  'applying',
  'starting',
  'deleting',
];

/** Whether the card reads a service in this status again every {@link SERVICE_POLL_INTERVAL_MS}. */
export function isPolledStatus(status: ServiceStatus): boolean {
  return POLLED_STATUSES.includes(status);
}

/** What the card shows, loaded in two steps: the service, then its usage and cost for the window. */
export interface GpuServiceData {
  service: {
    /** True until the first answer; polls keep the previous value on screen. */
    loading: boolean;
    value?: GpuServiceDetail;
    /** The first read failed (nothing to show). */
    error?: Error;
    /** A later poll failed: `value` is the previous answer and the card polls again. */
    refreshError?: Error;
    /** The card reads the service again in {@link SERVICE_POLL_INTERVAL_MS} (applying or starting). */
    polling: boolean;
  };
  figures: {
    loading: boolean;
    usage?: Outcome<ServiceUsage>;
    cost?: Outcome<ServiceCost>;
  };
  /** Reads the service, usage and cost again (after an action changed it). */
  reload: () => void;
}

function asError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(String(reason));
}

function outcome<T>(result: PromiseSettledResult<T>): Outcome<T> {
  return result.status === 'fulfilled'
    ? { value: result.value }
    : { error: asError(result.reason) };
}

type ServiceState = Omit<GpuServiceData['service'], 'polling'>;

/** Changes of the service announced within this long of each other read it once. */
export const CHANGE_DEBOUNCE_MS = 300;

/**
 * Reads the service and, while it is `applying` or `starting`, reads it again every
 * {@link SERVICE_POLL_INTERVAL_MS} (after the previous answer, so reads never overlap) until it reaches any other
 * status. A failed poll keeps the last answer and tries again. A new `reload` reads it again at once, keeping the
 * last answer on screen meanwhile.
 */
function usePolledService(
  serviceId: string,
  reload: number,
): GpuServiceData['service'] {
  const gpuApi = useApi(gpuApiRef);
  const [state, setState] = useState<ServiceState>({ loading: true });
  const lastRead = useRef<GpuServiceDetail>();
  useEffect(() => {
    let cancelled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    // A reload of the same service keeps the previous answer (on screen, and for a failed read).
    let last: GpuServiceDetail | undefined =
      lastRead.current?.id === serviceId ? lastRead.current : undefined;
    if (!last) setState({ loading: true });
    const read = async () => {
      try {
        const value = await gpuApi.getService(serviceId);
        if (cancelled) return;
        last = value;
        lastRead.current = value;
        setState({ loading: false, value });
      } catch (reason) {
        if (cancelled) return;
        const error = asError(reason);
        setState(
          last
            ? { loading: false, value: last, refreshError: error }
            : { loading: false, error },
        );
      }
      if (last && isPolledStatus(last.status)) {
        timer = setTimeout(read, SERVICE_POLL_INTERVAL_MS);
      }
    };
    read();
    return () => {
      cancelled = true;
      if (timer) clearTimeout(timer);
    };
  }, [gpuApi, serviceId, reload]);
  return {
    ...state,
    polling: state.value !== undefined && isPolledStatus(state.value.status),
  };
}

/**
 * Loads a gpu service (polled while applying or starting) and, once it exists and has held GPUs, its usage and
 * cost over `usageWindow`. Usage and cost fail independently: cost (allocation) stays on screen when usage cannot be read. A
 * poll does not reload usage and cost. A change of the service the gpu backend announces on the
 * `gpu:service-changes` signal (approved, rejected, a new status, changed) reads the service, usage and cost again,
 * keeping the figures on screen meanwhile.
 */
export function useGpuServiceData(
  serviceId: string,
  usageWindow: string,
): GpuServiceData {
  const gpuApi = useApi(gpuApiRef);
  const [reload, setReload] = useState(0);
  useGpuChanges(() => setReload(n => n + 1), {
    filter: change =>
      change.kind === 'service' && change.serviceId === serviceId,
    debounceMs: CHANGE_DEBOUNCE_MS,
  });
  const service = usePolledService(serviceId, reload);
  // A service that never held anything (waiting for approval, rejected) has no usage or cost to read.
  const found =
    service.value !== undefined &&
    (describeLifecycle(service.value)?.hasCost ?? true);
  const figures = useAsync(async () => {
    if (!found) return undefined;
    const [usage, cost] = await Promise.allSettled([
      gpuApi.getServiceUsage(serviceId, usageWindow),
      gpuApi.getServiceCost(serviceId, usageWindow),
    ]);
    return {
      key: `${serviceId} ${usageWindow}`,
      usage: outcome(usage),
      cost: outcome(cost),
    };
  }, [gpuApi, serviceId, usageWindow, found, reload]);
  // Loading (a progress bar instead of the figures) until the figures of this service and window are in; a reload
  // of the same ones keeps the previous figures on screen.
  const shown = figures.value?.key === `${serviceId} ${usageWindow}`;
  return {
    service,
    figures: {
      loading: service.loading || (figures.loading && !shown),
      usage: figures.value?.usage,
      cost: figures.value?.cost,
    },
    reload: () => setReload(n => n + 1),
  };
}
