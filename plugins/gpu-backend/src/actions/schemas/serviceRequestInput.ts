import {
  DTYPES,
  RUNTIMES,
  SHARING_TIERS,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { z as zod } from 'zod/v3';

/** A non-empty list of allowed values, for `z.enum`: tools/list then offers an agent exactly these. */
const oneOf = <T extends string>(values: readonly T[]) =>
  values as unknown as [T, ...T[]];

/**
 * A GPU model service request as an action takes it. The types, and the runtime, dtype and tier from gpu-common's
 * lists, are checked when the input is parsed (`fieldChecked`: `replicas: expected a number, got string`); the values (name grammar, ranges, known team, model, pool and tier
 * policy) by `validateServiceRequest`, whose errors name the field and what is allowed.
 */
export const serviceRequestInput = (z: typeof zod) =>
  z
    .object({
      name: z
        .string()
        .describe(
          'Service name: a DNS-1123 label of at most 40 characters (lower-case letters, digits, dashes)',
        ),
      team: z
        .string()
        .describe('Owning team, a catalog group name such as ml-platform'),
      namespace: z
        .string()
        .optional()
        .describe("Namespace; defaults to the team's first namespace"),
      model: z
        .string()
        .describe('Model from the platform catalogue, e.g. llama-3.1-8b'),
      runtime: z.enum(oneOf(RUNTIMES)).describe('Serving engine'),
      dtype: z
        .enum(oneOf(DTYPES))
        .optional()
        .describe("Weight precision; defaults to the model's"),
      maxModelLen: z
        .number()
        .describe('Context length in tokens (vLLM --max-model-len)'),
      concurrency: z
        .number()
        .describe('Concurrent sequences (vLLM --max-num-seqs)'),
      concurrentSequences: z
        .number()
        .optional()
        .describe(
          'Full-length (maxModelLen) sequences the service must hold at once, at most concurrency',
        ),
      replicas: z.number().describe('Replicas, 1 to 64'),
      environment: z
        .string()
        .describe('Environment of the platform: dev, staging or production'),
      tier: z
        .enum(oneOf(SHARING_TIERS))
        .optional()
        .describe('GPU sharing tier; every tier is considered when absent'),
      pool: z
        .string()
        .optional()
        .describe('GPU pool; every pool is considered when absent'),
      expectedTokensPerSecond: z
        .number()
        .optional()
        .describe(
          'Expected demand in generated tokens per second, for the cost per 1,000 tokens',
        ),
      measuredTokensPerSecond: z
        .number()
        .optional()
        .describe(
          'Generated tokens per second one replica sustained on the pool in a benchmark (needs pool); replaces the estimate',
        ),
      autoscaling: z
        .object({
          minReplicas: z
            .number()
            .describe('Fewest replicas (0: scale to zero, KEDA only)'),
          maxReplicas: z.number().describe('Most replicas'),
          targetQueueDepth: z
            .number()
            .describe('Waiting requests per replica that trigger a scale-up'),
          engine: z.string().describe('keda (ScaledObject) or hpa'),
        })
        .optional()
        .describe('Autoscaling between minReplicas and maxReplicas'),
    })
    .describe('The GPU model service request');
