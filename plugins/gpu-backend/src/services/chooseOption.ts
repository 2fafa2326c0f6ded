import { ConflictError, InputError } from '@backstage/errors';
import {
  environmentAllowsCluster,
  findEnvironment,
  GpuDomainError,
  Platform,
  Placement,
  Quote,
  QuoteOption,
} from '@gpu-platform/backstage-plugin-gpu-common';

/**
 * The option a create or change request goes ahead with: the quote's recommendation among the options the request
 * narrowed to (by tier and pool). Fails with the reasons when nothing fits, when every option is refused and some
 * for their pool's free capacity (`ConflictError`, 409), and when the catalogue has no checkpoint of the model in the
 * requested dtype for its runtime (naming the dtypes it has), and with an `InputError` (400) when every option is
 * refused and some because their pool's cluster is one the environment may not use (a production request on a pool of
 * a dev cluster).
 */
export function chooseOption(platform: Platform, quote: Quote): QuoteOption {
  const dtype = quote.dtypes.find(d => d.dtype === quote.dtype);
  if (dtype && !dtype.available) {
    throw new GpuDomainError(
      'OUT_OF_RANGE',
      dtype.reason ?? `No checkpoint in ${quote.dtype}`,
      {
        allowed: quote.dtypes.filter(d => d.available).map(d => d.dtype),
      },
    );
  }
  if (quote.recommended) {
    return quote.recommended;
  }
  const environment = findEnvironment(platform, quote.environment);
  const offCluster = quote.options.filter(
    o => !environmentAllowsCluster(environment, o.cluster),
  );
  if (
    offCluster.length > 0 &&
    quote.options.every(o => o.verdict === 'forbidden')
  ) {
    const clusters = [...new Set(offCluster.map(o => o.cluster))];
    const pools = [...new Set(offCluster.map(o => o.slice.pool))];
    throw new InputError(
      `Environment ${environment.name} may not run on cluster ${clusters.join(
        ', ',
      )} (pool ${pools.join(', ')}); it may use clusters ${(
        environment.clusters ?? []
      ).join(', ')}: ask for a pool on one of them`,
    );
  }
  const overCapacity = quote.options.filter(
    o => o.verdict === 'forbidden' && o.poolCapacity && !o.poolCapacity.fits,
  );
  if (
    overCapacity.length > 0 &&
    quote.options.every(o => o.verdict === 'forbidden')
  ) {
    // The platform refuses requests beyond a pool's free capacity (gpu.admission.whenOverPoolCapacity: refuse).
    throw new ConflictError(
      `No option for ${quote.service} is allowed: ${overCapacity
        .slice(0, 5)
        .map(o => `${o.slice.tier} on ${o.slice.pool}: ${o.reasons.join('; ')}`)
        .join(' | ')}`,
    );
  }
  const why = quote.unavailable.map(
    u => `${u.slice.tier} on ${u.slice.pool}: ${u.reason}`,
  );
  throw new GpuDomainError(
    'NO_FIT',
    `No tier and pool can run ${quote.service}${
      why.length ? `: ${why.slice(0, 5).join('; ')}` : ''
    }`,
  );
}

/** Where the chosen option puts each replica. */
export function placementOf(option: QuoteOption): Placement {
  return {
    tier: option.slice.tier,
    pool: option.slice.pool,
    ...(option.slice.migProfile ? { migProfile: option.slice.migProfile } : {}),
    gpusPerReplica: option.slice.gpusPerReplica,
  };
}
