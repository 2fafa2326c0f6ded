import { useEffect, useState } from 'react';
import { formatAge, formatTime } from './format';

/** How often relative times are worked out again: "2 minutes ago" is never more than this stale. */
export const RELATIVE_TIME_REFRESH_MS = 30_000;

/** The current time, updated every `intervalMs` while the component is mounted. */
export function useNow(intervalMs: number = RELATIVE_TIME_REFRESH_MS): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}

/**
 * An ISO time relative to now (`5 minutes ago`, `just now`) that keeps up with the clock while the page stays open, in
 * a `<time>` element carrying the exact time (its `dateTime`, and `2026-11-29 22:10 UTC` on hover).
 */
export function RelativeTime(props: { iso: string }) {
  const now = useNow();
  return (
    <time dateTime={props.iso} title={formatTime(props.iso)}>
      {formatAge(props.iso, now)}
    </time>
  );
}
