import { z } from 'zod';
import { strict } from '../platform/strictObject';

/** Karpenter's own pattern for `consolidateAfter` (and what Prometheus accepts as `for`, less `Never`). */
const KARPENTER_DURATION = /^(([0-9]+(s|m|h))+|Never)$/;
const PROMETHEUS_DURATION = /^([0-9]+(ms|s|m|h|d|w|y))+$/;

const nodeClassRef = strict({
  group: z.string().min(1),
  kind: z.string().min(1),
  name: z.string().min(1),
});

const consolidateAfter = z.string().regex(KARPENTER_DURATION, {
  error: 'must be a duration such as 30s, 5m or 1h30m, or Never',
});

/** `gpu.pools[].karpenter`. */
export const poolKarpenterSchema = strict({
  /** `false`: the pool's nodes are not Karpenter's (no NodePool). Default `true`. */
  managed: z.boolean().optional(),
  instanceFamilies: z
    .array(
      z
        .string()
        .regex(
          /^[a-z0-9][a-z0-9-]*$/,
          'must be an EC2 instance family such as g6',
        ),
    )
    .min(1)
    .optional(),
  nodeClassRef: nodeClassRef.optional(),
  consolidateAfter: consolidateAfter.optional(),
});

/** `gpu.karpenter`. */
export const karpenterSchema = strict({
  /** `false`: no NodePools at all (a cluster without Karpenter). Default `true`. */
  enabled: z.boolean().optional(),
  nodeClassRef: nodeClassRef.optional(),
  consolidateAfter: consolidateAfter.optional(),
});

/** `gpu.alerts`. */
export const alertsSchema = strict({
  enabled: z.boolean().optional(),
  scope: z.enum(['cluster', 'team']).optional(),
  namespace: z.string().optional(),
  labels: z.record(z.string(), z.string()).optional(),
  productionEnvironments: z.array(z.string()).min(1).optional(),
  queueWaitingAbove: z.number().int().min(0).max(1_000_000).optional(),
  queueFor: z
    .string()
    .regex(PROMETHEUS_DURATION, { error: 'must be a duration such as 5m' })
    .optional(),
});

/** The parts of the `gpu` section {@link parsePlatformOperations} reads. */
export const operationsConfigSchema = z.object({
  karpenter: karpenterSchema.optional(),
  alerts: alertsSchema.optional(),
  pools: z
    .array(
      z.object({ name: z.string(), karpenter: poolKarpenterSchema.optional() }),
    )
    .optional(),
});
