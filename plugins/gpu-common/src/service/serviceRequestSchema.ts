import { z } from 'zod';
import { DNS1123_LABEL_PATTERN } from '../platform/names';
import { Dtype, Runtime, SHARING_TIERS } from '../platform/types';
import {
  MAX_LATENCY_BUDGET_SECONDS,
  MIN_LATENCY_BUDGET_SECONDS,
  ServiceRequest,
} from './types';

/**
 * Longest service name: rendered object names append suffixes to it and must stay within 63 characters.
 *
 * @public
 */
export const MAX_SERVICE_NAME_LENGTH = 40;

/**
 * Weight dtypes a request may ask for.
 *
 * @public
 */
export const DTYPES: readonly Dtype[] = [
  'fp32',
  'bf16',
  'fp16',
  'fp8',
  'int8',
  'int4',
];

/**
 * Serving runtimes.
 *
 * @public
 */
export const RUNTIMES: readonly Runtime[] = ['vllm', 'ollama'];

const int = (min: number, max: number) => z.number().int().min(min).max(max);

/**
 * Structural schema of a {@link ServiceRequest} (types, formats and platform-independent ranges; unknown keys are
 * rejected). Reuse it to parse request bodies; `validateServiceRequest` adds the checks against a platform.
 *
 * @public
 */
export const serviceRequestSchema = z.strictObject({
  name: z
    .string()
    .max(MAX_SERVICE_NAME_LENGTH, {
      error: `must be at most ${MAX_SERVICE_NAME_LENGTH} characters`,
    })
    .regex(DNS1123_LABEL_PATTERN, {
      error:
        'must be a DNS-1123 label: lowercase letters, digits and "-", starting and ending with a letter or digit',
    }),
  team: z.string().min(1),
  namespace: z.string().min(1).optional(),
  model: z.string().min(1),
  runtime: z.enum(RUNTIMES as [Runtime, ...Runtime[]]),
  dtype: z.enum(DTYPES as [Dtype, ...Dtype[]]).optional(),
  maxModelLen: int(1, 10_000_000),
  concurrency: int(1, 1024),
  concurrentSequences: int(1, 1024).optional(),
  replicas: int(1, 64),
  environment: z.string().min(1),
  tier: z.enum(SHARING_TIERS).optional(),
  pool: z.string().min(1).optional(),
  expectedTokensPerSecond: z.number().positive().max(10_000_000).optional(),
  measuredTokensPerSecond: z.number().positive().max(10_000_000).optional(),
  autoscaling: z
    .strictObject({
      minReplicas: int(0, 64),
      maxReplicas: int(1, 64),
      targetQueueDepth: int(1, 10_000),
      engine: z.enum(['keda', 'hpa']),
    })
    .optional(),
  latencyBudget: z
    .strictObject({
      p95Seconds: z
        .number()
        .min(MIN_LATENCY_BUDGET_SECONDS)
        .max(MAX_LATENCY_BUDGET_SECONDS),
    })
    .optional(),
}) satisfies z.ZodType<ServiceRequest>;
