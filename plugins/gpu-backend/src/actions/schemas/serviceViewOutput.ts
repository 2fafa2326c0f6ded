import { SERVICE_REASONS } from '@gpu-platform/backstage-plugin-gpu-common';
import { z as zod } from 'zod/v3';

/** A GPU service as the API shows it (`GpuServiceView`); fields not listed here pass through unchanged. */
export const serviceViewOutput = (z: typeof zod) =>
  z
    .object({
      id: z
        .string()
        .describe('Service id, the key of the other service actions'),
      name: z.string(),
      team: z.string().describe('Owning team'),
      namespace: z.string(),
      entityRef: z
        .string()
        .optional()
        .describe('Catalog component the service belongs to'),
      environment: z.string(),
      status: z
        .string()
        .describe(
          'pending-approval, approved, applying, starting, ready, failed, rejected, deleting or deleted',
        ),
      reason: z
        .enum(SERVICE_REASONS)
        .describe('Why it has that status, as a code to switch on'),
      statusReason: z
        .string()
        .optional()
        .describe('Why it has that status, in words for people'),
      generation: z
        .number()
        .describe('Spec generation: 1 at creation, one more per change'),
      observedGeneration: z
        .number()
        .optional()
        .describe('The generation last applied to the cluster'),
      conditions: z
        .array(
          z.object({
            type: z
              .string()
              .describe('Reserved, Approved, Applied, Available or Deleting'),
            status: z.enum(['True', 'False', 'Unknown']),
            reason: z.enum(SERVICE_REASONS),
            message: z.string().optional(),
            observedGeneration: z.number(),
            lastTransitionTime: z.string(),
          }),
        )
        .describe('Kubernetes-style conditions; status summarises them'),
      placement: z
        .object({
          tier: z.string(),
          pool: z.string(),
          migProfile: z.string().optional(),
          gpusPerReplica: z.number(),
        })
        .passthrough()
        .describe('Where each replica runs'),
      gpuEquivalents: z
        .number()
        .describe('GPU-equivalents reserved for all replicas'),
      monthlyCost: z
        .string()
        .describe('Projected monthly allocation cost, USD, e.g. "587.50"'),
      cluster: z.string().optional(),
      mode: z.string().describe('apply, gitops or dry-run'),
      endpoint: z
        .string()
        .describe(
          "In-cluster URL of the model's OpenAI-compatible or Ollama API",
        ),
      approval: z
        .object({
          id: z.string(),
          kind: z.string().describe('create or change'),
          state: z.string().describe('pending, approved or rejected'),
        })
        .passthrough()
        .optional()
        .describe('The approval the service waits for or was granted'),
      createdBy: z.string(),
      createdAt: z.string(),
      updatedAt: z.string(),
    })
    .passthrough();
