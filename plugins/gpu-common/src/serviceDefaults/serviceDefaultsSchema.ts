import { z } from 'zod';
import { strict } from '../platform/strictObject';
import { isDns1123Label, isLabelKey, isLabelValue } from '../platform/names';

const dnsLabel = z.string().refine(v => isDns1123Label(v, 253), {
  error: 'must be a DNS-1123 name (lowercase letters, digits, "-" and ".")',
});

/** An image reference without a scheme: `repo/name:tag`, `repo/name@sha256:<64 hex>` or both. */
const IMAGE_REFERENCE =
  /^[a-z0-9]+(?:[._-][a-z0-9]+)*(?::[0-9]+)?(?:\/[a-z0-9]+(?:[._-][a-z0-9]+)*)*(?::[\w][\w.-]{0,127})?(?:@sha256:[a-f0-9]{64})?$/;
const image = z.string().regex(IMAGE_REFERENCE, {
  error:
    'must be an image reference such as vllm/vllm-openai:v0.18.0 or vllm/vllm-openai@sha256:<64 hex digits>',
});
const registry = z
  .string()
  .regex(
    /^[a-z0-9]+(?:[._-][a-z0-9]+)*(?::[0-9]+)?(?:\/[a-z0-9]+(?:[._-][a-z0-9]+)*)*$/,
    {
      error:
        'must be a registry host with an optional path and no scheme or trailing "/", e.g. registry.example.com/dockerhub',
    },
  );

const labels = z.record(
  z.string().refine(isLabelKey, {
    error:
      'must be a label key (an optional DNS prefix and "/", then a name of at most 63 characters)',
  }),
  z.string().refine(isLabelValue, {
    error:
      'must be a label value: at most 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit',
  }),
);
const annotations = z.record(
  z.string().refine(isLabelKey, { error: 'must be an annotation key' }),
  z.string(),
);
const id = z
  .number()
  .int()
  .min(0)
  .max(2 ** 31 - 1);

const podSecurityContext = strict({
  runAsNonRoot: z.boolean().optional(),
  runAsUser: id.optional(),
  runAsGroup: id.optional(),
  fsGroup: id.optional(),
  seccompProfile: strict({
    type: z.enum(['RuntimeDefault', 'Unconfined', 'Localhost']),
  }).optional(),
});

const containerSecurityContext = strict({
  runAsNonRoot: z.boolean().optional(),
  runAsUser: id.optional(),
  runAsGroup: id.optional(),
  allowPrivilegeEscalation: z.boolean().optional(),
  readOnlyRootFilesystem: z.boolean().optional(),
  capabilities: strict({
    add: z.array(z.string().min(1)).optional(),
    drop: z.array(z.string().min(1)).optional(),
  }).optional(),
});

const scaleToZero = z.union(
  [
    strict({
      httpAddOn: strict({
        scaledownPeriodSeconds: z.number().int().min(0).max(86400).optional(),
        interceptorUrl: z
          .url({
            protocol: /^https?$/,
            error:
              'must be an http(s) URL, e.g. http://keda-add-ons-http-interceptor-proxy.keda.svc.cluster.local:8080',
          })
          .optional(),
      }),
    }),
    strict({
      wakeQuery: z.string().min(1),
    }),
  ],
  {
    error:
      'must be { httpAddOn: { scaledownPeriodSeconds?, interceptorUrl? } } (KEDA HTTP add-on) or { wakeQuery: "<PromQL on a gateway or queue metric>" }',
  },
);

const settingsShape = {
  huggingFaceTokenSecret: strict({
    name: dnsLabel,
    key: z.string().min(1),
  }).optional(),
  images: strict({
    registry: registry.optional(),
    vllm: image.optional(),
    ollama: image.optional(),
  }).optional(),
  modelCache: strict({
    storageClassName: dnsLabel.optional(),
    existingClaim: dnsLabel.optional(),
  }).optional(),
  runtimeClassName: dnsLabel.optional(),
  podSecurityContext: podSecurityContext.optional(),
  containerSecurityContext: containerSecurityContext.optional(),
  prometheusServerAddress: z
    .url({
      protocol: /^https?$/,
      error:
        'must be an http(s) URL, e.g. http://prometheus-operated.monitoring.svc:9090',
    })
    .optional(),
  labels: labels.optional(),
  annotations: annotations.optional(),
  zeroDowntimeRollouts: z.boolean().optional(),
  podDisruptionBudget: strict({
    maxUnavailable: z.number().int().min(1).max(1000),
  }).optional(),
  podMonitor: z
    .union([z.boolean(), strict({ labels: labels.optional() })], {
      error: 'must be true, false or { labels: { <key>: <value> } }',
    })
    .optional(),
  scaleToZero: scaleToZero.optional(),
  scaleDownStabilizationSeconds: z.number().int().min(0).max(3600).optional(),
};

/**
 * The settings of one level of `gpu.serviceDefaults` (the defaults, or one pool's or environment's override).
 *
 * @public
 */
export const serviceSettingsSchema = strict(settingsShape);

/**
 * `gpu.serviceDefaults` as written in app-config: the settings, plus `byPool.<pool>` and `byEnvironment.<env>`
 * overrides of the same settings.
 *
 * @public
 */
export const serviceDefaultsSchema = strict({
  ...settingsShape,
  byPool: z.record(z.string(), serviceSettingsSchema).optional(),
  byEnvironment: z.record(z.string(), serviceSettingsSchema).optional(),
});

/**
 * `gpu.serviceDefaults` as written.
 *
 * @public
 */
export type ServiceDefaultsConfig = z.input<typeof serviceDefaultsSchema>;
