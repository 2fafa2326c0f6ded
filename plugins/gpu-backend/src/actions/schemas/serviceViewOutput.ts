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
      statusReason: z.string().optional().describe('Why it has that status'),
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
