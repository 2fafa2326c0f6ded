import {
  formatUsd,
  GpuServiceView,
  Quote,
  QuoteOption,
  SharingTier,
} from '@gpu-platform/backstage-plugin-gpu-common';

/** A tier and pool a service can move to: what `PATCH /services/:id` takes, the backend picks the slice in it. */
export interface TierPoolChoice {
  /** `dedicated/l4-ondemand`: the value of the choice in a select. */
  key: string;
  tier: SharingTier;
  pool: string;
  /** `mig on a100-mig`. */
  label: string;
}

/** The key of a tier and pool. */
export function choiceKey(tier: SharingTier, pool: string): string {
  return `${tier}/${pool}`;
}

/**
 * The tiers and pools a quote of every tier offers (the model fits, the environment does not forbid), in the quote's
 * order, each once; the service's own tier and pool is always among them so the dialog can change only its size.
 */
export function tierPoolChoices(
  service: GpuServiceView,
  quote: Quote | undefined,
): TierPoolChoice[] {
  const choices = new Map<string, TierPoolChoice>();
  const add = (tier: SharingTier, pool: string) => {
    const key = choiceKey(tier, pool);
    if (!choices.has(key)) {
      choices.set(key, { key, tier, pool, label: `${tier} on ${pool}` });
    }
  };
  add(service.placement.tier, service.placement.pool);
  for (const option of quote?.options ?? []) {
    if (option.verdict !== 'forbidden') {
      add(option.slice.tier, option.slice.pool);
    }
  }
  return [...choices.values()];
}

/** `dedicated x2 on h100`, `mig 3g.40gb on a100-mig`: the slice of one replica. */
export function describeOptionSlice(option: QuoteOption): string {
  const { slice } = option;
  let size = '';
  if (slice.tier === 'dedicated' && slice.gpusPerReplica > 1) {
    size = ` x${slice.gpusPerReplica}`;
  } else if (slice.migProfile) {
    size = ` ${slice.migProfile}`;
  }
  return `${slice.tier}${size} on ${slice.pool}`;
}

/**
 * The body of `PATCH /services/:id` that moves the service to `target`, or undefined when it is where the service
 * is. Tier and pool are always sent: the backend re-quotes the stored request with the change, and a request created
 * without a tier or pool would otherwise be free to land elsewhere when only its replicas change.
 */
export function changeBody(
  service: GpuServiceView,
  target: { tier: SharingTier; pool: string; replicas: number },
): { tier: SharingTier; pool: string; replicas: number } | undefined {
  const unchanged =
    target.tier === service.placement.tier &&
    target.pool === service.placement.pool &&
    target.replicas === service.request.replicas;
  return unchanged ? undefined : { ...target };
}

/** Replicas the service may run: 1 to 64, or its autoscaling range. */
export function replicaRange(service: GpuServiceView): {
  min: number;
  max: number;
} {
  const autoscaling = service.request.autoscaling;
  return autoscaling
    ? {
        min: Math.max(1, autoscaling.minReplicas),
        max: autoscaling.maxReplicas,
      }
    : { min: 1, max: 64 };
}

/** What a change does to the monthly cost: `saves $1.00 a month`, `costs $1.00 more a month`, `costs the same`. */
export function costEffect(
  currentMicros: number,
  proposedMicros: number,
): string {
  const delta = proposedMicros - currentMicros;
  if (delta < 0) return `saves ${formatUsd(-delta)} a month`;
  if (delta > 0) return `costs ${formatUsd(delta)} more a month`;
  return 'costs the same';
}
