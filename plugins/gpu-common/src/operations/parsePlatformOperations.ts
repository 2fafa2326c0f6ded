import { listAllowed } from '../errors';
import { ConfigIssues } from '../platform/configIssues';
import { isDns1123Label, isLabelKey, isLabelValue } from '../platform/names';
import { Platform, Pool } from '../platform/types';
import { operationsConfigSchema } from './operationsConfigSchema';
import {
  AlertSettings,
  NodeClassRef,
  PlatformOperations,
  PoolKarpenter,
} from './types';

/**
 * Node class of every NodePool unless `gpu.karpenter.nodeClassRef` or a pool's own says otherwise.
 *
 * @public
 */
export const DEFAULT_NODE_CLASS_REF: NodeClassRef = {
  group: 'karpenter.k8s.aws',
  kind: 'EC2NodeClass',
  name: 'gpu',
};

/** Defaults of the Karpenter and alert settings. */
const DEFAULTS = {
  consolidateAfter: '5m',
  alertNamespace: 'monitoring',
  productionEnvironments: ['production'],
  queueWaitingAbove: 10,
  queueFor: '5m',
} as const;

/** The node-class group whose instance families `instanceFamilies` names (`karpenter.k8s.aws/instance-family`). */
const EC2_GROUP = 'karpenter.k8s.aws';
const INSTANCE_TYPE_LABEL = 'node.kubernetes.io/instance-type';

/**
 * Validates `gpu.karpenter`, `gpu.pools[].karpenter` and `gpu.alerts` of the `gpu` section (as a plain object) against
 * the already-parsed platform and applies the defaults: every pool is Karpenter-managed unless `gpu.karpenter.enabled`
 * or the pool's `karpenter.managed` is `false`, with node class `karpenter.k8s.aws/EC2NodeClass/gpu` and
 * `consolidateAfter: 5m`; alerts are on, cluster-wide in `monitoring`, production cards being those of the
 * `production` environment, the queue alert at more than 10 waiting requests for 5m.
 *
 * @throws GpuDomainError `INVALID_CONFIG` naming each bad key by its path.
 * @public
 */
export function parsePlatformOperations(
  raw: unknown,
  platform: Platform,
): PlatformOperations {
  const issues = new ConfigIssues();
  const parsed = operationsConfigSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      issues.add(['gpu', ...issue.path], issue.message);
    }
    issues.throwIfAny();
  }
  const config = parsed.data!;
  const karpenter = config.karpenter ?? {};
  const rawPools = config.pools ?? [];
  const nodePools: PoolKarpenter[] = [];
  if (karpenter.enabled !== false) {
    platform.pools.forEach((pool, index) => {
      const own = rawPools[index]?.karpenter ?? {};
      if (own.managed === false) return;
      const settings: PoolKarpenter = {
        pool: pool.name,
        nodeClassRef:
          own.nodeClassRef ?? karpenter.nodeClassRef ?? DEFAULT_NODE_CLASS_REF,
        instanceFamilies: own.instanceFamilies ?? [],
        consolidateAfter:
          own.consolidateAfter ??
          karpenter.consolidateAfter ??
          DEFAULTS.consolidateAfter,
      };
      checkInstanceFamilies(pool, settings, ['gpu', 'pools', index], issues);
      nodePools.push(settings);
    });
  }
  const alerts = parseAlerts(config.alerts, platform, issues);
  issues.throwIfAny();
  return { nodePools, alerts };
}

function checkInstanceFamilies(
  pool: Pool,
  settings: PoolKarpenter,
  path: PropertyKey[],
  issues: ConfigIssues,
) {
  const families = settings.instanceFamilies;
  if (families.length === 0) return;
  if (settings.nodeClassRef.group !== EC2_GROUP) {
    issues.add(
      [...path, 'karpenter', 'instanceFamilies'],
      `are EC2 instance families (${EC2_GROUP}/instance-family); the pool's node class is ${settings.nodeClassRef.group}/${settings.nodeClassRef.kind}, so select its instances with the pool's nodeLabels instead`,
    );
  }
  const instanceType = pool.nodeLabels[INSTANCE_TYPE_LABEL];
  const family = instanceType?.split('.')[0];
  if (family !== undefined && !families.includes(family)) {
    issues.add(
      [...path, 'karpenter', 'instanceFamilies'],
      `the pool's nodeLabels pin ${INSTANCE_TYPE_LABEL} ${instanceType}, of family ${family}, which is not among ${listAllowed(
        families,
      )}; no instance could be launched`,
    );
  }
}

function parseAlerts(
  raw: ReturnType<typeof operationsConfigSchema.parse>['alerts'],
  platform: Platform,
  issues: ConfigIssues,
): AlertSettings | undefined {
  const config = raw ?? {};
  if (config.enabled === false) return undefined;
  const path = ['gpu', 'alerts'];
  const namespace = config.namespace ?? DEFAULTS.alertNamespace;
  if (!isDns1123Label(namespace)) {
    issues.add(
      [...path, 'namespace'],
      `"${namespace}" is not a DNS-1123 label (lowercase letters, digits and "-")`,
    );
  }
  const labels = config.labels ?? {};
  for (const [key, value] of Object.entries(labels)) {
    if (!isLabelKey(key) || !isLabelValue(value)) {
      issues.add(
        [...path, 'labels', key],
        `"${key}: ${value}" is not a valid Kubernetes label`,
      );
    }
  }
  const names = config.productionEnvironments;
  const known = platform.environments.map(e => e.name);
  for (const name of names ?? []) {
    if (!known.includes(name)) {
      issues.add(
        [...path, 'productionEnvironments'],
        `unknown environment "${name}"; allowed: ${listAllowed(known)}`,
      );
    }
  }
  const production: readonly string[] =
    names ?? DEFAULTS.productionEnvironments;
  return {
    scope: config.scope ?? 'cluster',
    namespace,
    labels,
    productionPriorityClasses: [
      ...new Set(
        platform.environments
          .filter(e => production.includes(e.name))
          .map(e => e.priorityClass),
      ),
    ],
    queueWaitingAbove: config.queueWaitingAbove ?? DEFAULTS.queueWaitingAbove,
    queueFor: config.queueFor ?? DEFAULTS.queueFor,
  };
}
