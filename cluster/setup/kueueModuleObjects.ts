import type { KubernetesObject } from '@kubernetes/client-node';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { goModuleDir } from './goModuleDir';

/** The Kueue integrations the local Kueue runs (its Configuration in scripts/cluster lists the same). */
const INTEGRATION_WEBHOOK_PATHS = [
  '-batch-v1-job',
  '--v1-pod',
  '-apps-v1-deployment',
];

/** Namespaces Kueue's own kustomization keeps out of its job and pod webhooks. */
const SYSTEM_NAMESPACES_SELECTOR = {
  matchExpressions: [
    {
      key: 'kubernetes.io/metadata.name',
      operator: 'NotIn',
      values: ['kube-system', 'kueue-system'],
    },
  ],
};

/** CRDs whose versions Kueue converts (config/components/crd/kustomization.yaml of the module). */
const CONVERTED_CRDS = [
  'localqueues.kueue.x-k8s.io',
  'clusterqueues.kueue.x-k8s.io',
  'cohorts.kueue.x-k8s.io',
  'workloads.kueue.x-k8s.io',
  'multikueueclusters.kueue.x-k8s.io',
];

type WebhookConfiguration = KubernetesObject & {
  webhooks: Array<{
    name: string;
    clientConfig: {
      service?: { path?: string };
      url?: string;
      caBundle?: string;
    };
    namespaceSelector?: unknown;
  }>;
};

/**
 * Kueue's CRDs and webhook configurations as its release installs them, with every webhook served by the local
 * Kueue at `webhookUrl` (Kueue's Service does not exist outside a cluster network) and trusted through `caBundle`.
 */
export function kueueModuleObjects(options: {
  webhookUrl: string;
  caBundle: string;
}): { crds: KubernetesObject[]; webhookConfigurations: KubernetesObject[] } {
  const dir = goModuleDir('sigs.k8s.io/kueue');
  const clientConfig = (path: string) => ({
    url: `${options.webhookUrl}${path}`,
    caBundle: options.caBundle,
  });

  const crdDir = join(dir, 'config/components/crd/bases');
  const crds = readdirSync(crdDir)
    .filter(file => file.endsWith('.yaml'))
    .sort()
    .map(file => {
      const crd = parseAllDocuments(
        readFileSync(join(crdDir, file), 'utf8'),
      )[0].toJS() as KubernetesObject & { spec: Record<string, unknown> };
      if (CONVERTED_CRDS.includes(crd.metadata!.name!)) {
        crd.spec.conversion = {
          strategy: 'Webhook',
          webhook: {
            clientConfig: clientConfig('/convert'),
            conversionReviewVersions: ['v1'],
          },
        };
      }
      return crd;
    });

  const webhookConfigurations = parseAllDocuments(
    readFileSync(join(dir, 'config/components/webhook/manifests.yaml'), 'utf8'),
  )
    .map(doc => doc.toJS() as WebhookConfiguration)
    .filter(Boolean)
    .map(configuration => ({
      ...configuration,
      metadata: { name: `kueue-${configuration.metadata!.name}` },
      webhooks: configuration.webhooks
        .filter(webhook => {
          const path = webhook.clientConfig.service?.path ?? '';
          return (
            path.includes('-kueue-x-k8s-io-') ||
            INTEGRATION_WEBHOOK_PATHS.some(suffix => path.endsWith(suffix))
          );
        })
        .map(webhook => {
          const path = webhook.clientConfig.service!.path!;
          const isIntegration = !path.includes('-kueue-x-k8s-io-');
          return {
            ...webhook,
            clientConfig: clientConfig(path),
            ...(isIntegration
              ? { namespaceSelector: SYSTEM_NAMESPACES_SELECTOR }
              : {}),
          };
        }),
    }));

  return { crds, webhookConfigurations };
}
