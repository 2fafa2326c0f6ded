import { Config } from '@backstage/config';
import { GpuDomainError } from '../errors';

/**
 * How a service that autoscales is reserved and priced (`gpu.admission.autoscaledReplicas`):
 * - `maximum`: its maximum replicas are reserved against the team's quota and priced; every replica KEDA or the HPA
 *   may start is already held.
 * - `minimum-plus-burst`: its minimum replicas are reserved and priced, at least one (a service that scales to zero
 *   keeps the replica that answers its first request); replicas above them burst into the team's quota that nothing
 *   reserves: Kueue admits them while that quota has room, and they wait otherwise.
 *
 * @public
 */
export type AutoscaledReplicasPolicy = 'maximum' | 'minimum-plus-burst';

/**
 * Every {@link AutoscaledReplicasPolicy}.
 *
 * @public
 */
export const AUTOSCALED_REPLICAS_POLICIES: readonly AutoscaledReplicasPolicy[] =
  ['maximum', 'minimum-plus-burst'];

/**
 * The policy when `gpu.admission.autoscaledReplicas` is not set: the maximum is reserved and priced, so a service
 * never scales into capacity its team does not hold.
 *
 * @public
 */
export const DEFAULT_AUTOSCALED_REPLICAS_POLICY: AutoscaledReplicasPolicy =
  'maximum';

/**
 * Validates `gpu.admission.autoscaledReplicas` (undefined: {@link DEFAULT_AUTOSCALED_REPLICAS_POLICY}).
 *
 * @throws GpuDomainError `INVALID_CONFIG` for any other value, naming the allowed ones.
 * @public
 */
export function parseAutoscaledReplicasPolicy(
  raw: unknown,
): AutoscaledReplicasPolicy {
  if (raw === undefined) return DEFAULT_AUTOSCALED_REPLICAS_POLICY;
  if (
    typeof raw === 'string' &&
    (AUTOSCALED_REPLICAS_POLICIES as readonly string[]).includes(raw)
  ) {
    return raw as AutoscaledReplicasPolicy;
  }
  throw new GpuDomainError(
    'INVALID_CONFIG',
    `gpu.admission.autoscaledReplicas: ${JSON.stringify(
      raw,
    )} is not a policy; allowed: 'maximum' (reserve and price the maximum replicas) or 'minimum-plus-burst' (reserve and price the minimum, at least 1; replicas above it run within the team's unreserved quota)`,
    { allowed: [...AUTOSCALED_REPLICAS_POLICIES] },
  );
}

/**
 * Reads `gpu.admission.autoscaledReplicas` from app-config; see {@link parseAutoscaledReplicasPolicy}. Read once at
 * start-up and given to every quote.
 *
 * @public
 */
export function readAutoscaledReplicasPolicy(
  config: Config,
): AutoscaledReplicasPolicy {
  return parseAutoscaledReplicasPolicy(
    config.getOptional('gpu.admission.autoscaledReplicas'),
  );
}

/**
 * Which replicas a quote reserves and prices, and why:
 * - `fixed`: the request does not autoscale; its `replicas` are reserved and priced;
 * - `maximum` or `minimum-plus-burst`: the request autoscales between `minReplicas` and `maxReplicas`, and the
 *   platform's {@link AutoscaledReplicasPolicy} chose what is reserved and priced.
 *
 * @public
 */
export type ReplicaPricingBasis = 'fixed' | AutoscaledReplicasPolicy;

/**
 * The replicas an option reserves and prices (its `replicas`), and the scaling range around them.
 *
 * @public
 */
export interface OptionScaling {
  /** What decided the replicas reserved and priced. */
  basis: ReplicaPricingBasis;
  /** The request's autoscaling minimum; absent for `fixed`. */
  minReplicas?: number;
  /** The request's autoscaling maximum; absent for `fixed`. */
  maxReplicas?: number;
  /**
   * `minimum-plus-burst`: replicas the service may add above those reserved (maxReplicas - replicas), each run only
   * while the team's unreserved quota has room; 0 otherwise.
   */
  burstReplicas: number;
}
