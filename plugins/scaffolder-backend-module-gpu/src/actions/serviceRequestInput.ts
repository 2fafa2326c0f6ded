import {
  MAX_LATENCY_BUDGET_SECONDS,
  MIN_LATENCY_BUDGET_SECONDS,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { z as zod } from 'zod/v3';

/**
 * The input fields every `gpu:service:*` action shares: a GPU model service request as the template's form
 * collects it. The gpu backend validates it against the platform (models, pools, tiers, quotas).
 */
export const serviceRequestInput = {
  name: (z: typeof zod) =>
    z
      .string()
      .max(40)
      .regex(
        /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/,
        'must be a DNS-1123 label: lower-case letters, digits and dashes, starting and ending with a letter or digit',
      )
      .describe('Service name: a DNS-1123 label of at most 40 characters'),
  team: (z: typeof zod) =>
    z
      .string()
      .describe('Owning team, a catalog group name such as ml-platform'),
  namespace: (z: typeof zod) =>
    z
      .string()
      .optional()
      .describe("Namespace; defaults to the team's first namespace"),
  model: (z: typeof zod) =>
    z.string().describe('Model from the platform catalogue, e.g. llama-3.1-8b'),
  runtime: (z: typeof zod) =>
    z.enum(['vllm', 'ollama']).describe('Serving engine'),
  dtype: (z: typeof zod) =>
    z
      .enum(['fp32', 'bf16', 'fp16', 'fp8', 'int8', 'int4'])
      .optional()
      .describe("Weight precision; defaults to the model's"),
  maxModelLen: (z: typeof zod) =>
    z
      .number()
      .int()
      .positive()
      .describe('Context length in tokens (vLLM --max-model-len)'),
  concurrency: (z: typeof zod) =>
    z
      .number()
      .int()
      .positive()
      .describe('Concurrent sequences (vLLM --max-num-seqs)'),
  replicas: (z: typeof zod) =>
    z.number().int().positive().default(1).describe('Replicas'),
  environment: (z: typeof zod) =>
    z.string().describe('Environment: dev, staging or production'),
  tier: (z: typeof zod) =>
    z
      .enum(['dedicated', 'mig', 'mps', 'time-sliced'])
      .optional()
      .describe('GPU sharing tier; every tier is considered when absent'),
  pool: (z: typeof zod) =>
    z
      .string()
      .optional()
      .describe('GPU pool; every pool is considered when absent'),
  expectedTokensPerSecond: (z: typeof zod) =>
    z
      .number()
      .optional()
      .describe('Expected demand in generated tokens per second'),
  measuredTokensPerSecond: (z: typeof zod) =>
    z
      .number()
      .positive()
      .optional()
      .describe(
        'Sustained generated tokens per second one replica reached in your own benchmark; replaces the estimate',
      ),
  autoscaling: (z: typeof zod) =>
    z
      .object({
        minReplicas: z
          .number()
          .int()
          .min(0)
          .max(64)
          .describe(
            "Fewest replicas; 0 scales to zero when idle (KEDA only; woken through the platform's wake path, KEDA's HTTP add-on or a wake query)",
          ),
        maxReplicas: z
          .number()
          .int()
          .min(1)
          .max(64)
          .describe('Most replicas the autoscaler may run'),
        targetQueueDepth: z
          .number()
          .int()
          .positive()
          .describe(
            'Requests waiting per replica (vllm:num_requests_waiting) above which a replica is added',
          ),
        engine: z
          .enum(['keda', 'hpa'])
          .default('keda')
          .describe(
            'keda (a ScaledObject; scale to zero possible) or hpa (a HorizontalPodAutoscaler on a metrics adapter)',
          ),
      })
      .optional()
      .describe(
        "Scale on the serving queue between minReplicas and maxReplicas (vLLM only). What is reserved in the team's quota and priced is the platform's choice (gpu.admission.autoscaledReplicas): the maximum, or the minimum (1 for scale to zero) with the replicas above it running only while Kueue admits them within the team's quota; gpu:service:quote's scaling.basis says which",
      ),
  latencyBudget: (z: typeof zod) =>
    z
      .object({
        p95Seconds: z
          .number()
          .min(MIN_LATENCY_BUDGET_SECONDS)
          .max(MAX_LATENCY_BUDGET_SECONDS)
          .describe(
            `Seconds the 95th percentile of end-to-end request latency may reach, ${MIN_LATENCY_BUDGET_SECONDS} to ${MAX_LATENCY_BUDGET_SECONDS} (e.g. 2 for a summariser that must answer within 2 s)`,
          ),
      })
      .strict()
      .optional()
      .describe(
        "Latency budget of a vLLM service (Ollama exports no request latency metrics: refused there). The service's card shows the measured p95 (vllm:e2e_request_latency_seconds) against it, its manifests carry an alert rule that fires when it is exceeded (on a platform with gpu.alerts), and a service over it is never advised onto a shared tier",
      ),
  concurrentSequences: (z: typeof zod) =>
    z
      .number()
      .int()
      .positive()
      .optional()
      .describe(
        'Full-length (maxModelLen) sequences the service must hold at once; a slice whose KV cache holds fewer does not fit',
      ),
};
