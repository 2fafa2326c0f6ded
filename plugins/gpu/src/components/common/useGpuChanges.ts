import { useSignal } from '@backstage/plugin-signals-react';
import {
  GPU_SERVICE_CHANGES_CHANNEL,
  GpuServiceChangeSignal,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { useEffect, useRef } from 'react';

/**
 * Calls `onChange` for every change the gpu backend announces on `gpu:service-changes` (a service created, changed,
 * decided or with a new status; a team's quota), so that a page reads its data again when it changes instead of
 * polling. Changes arriving within `debounceMs` of each other call it once, with the last one (a status refresh or
 * an approval followed by its deploy announce several at once). Without the signals plugin (no signal API) it never
 * calls it.
 */
export function useGpuChanges(
  onChange: (change: GpuServiceChangeSignal) => void,
  options: {
    /** Only changes this returns true for. */
    filter?: (change: GpuServiceChangeSignal) => boolean;
    /** 0 calls it at once for each change. */
    debounceMs?: number;
  } = {},
): void {
  const { lastSignal } = useSignal<GpuServiceChangeSignal>(
    GPU_SERVICE_CHANGES_CHANNEL,
  );
  const latest = useRef({ onChange, filter: options.filter });
  latest.current = { onChange, filter: options.filter };
  const debounceMs = options.debounceMs ?? 0;

  const timer = useRef<ReturnType<typeof setTimeout>>();
  useEffect(() => () => clearTimeout(timer.current), []);

  useEffect(() => {
    if (!lastSignal) return;
    const { filter } = latest.current;
    if (filter && !filter(lastSignal)) return;
    if (debounceMs <= 0) {
      latest.current.onChange(lastSignal);
      return;
    }
    // A newer change within debounceMs replaces this one: only the last of a burst calls back.
    clearTimeout(timer.current);
    const change = lastSignal;
    timer.current = setTimeout(
      () => latest.current.onChange(change),
      debounceMs,
    );
  }, [lastSignal, debounceMs]);
}
