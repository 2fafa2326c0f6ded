import { Config } from '@backstage/config';
import { InputError } from '@backstage/errors';
import { JsonObject } from '@backstage/types';
import {
  ClusterConnection,
  ClusterLabels,
  ClusterMode,
  ClusterTarget,
  ServiceAccountConnection,
} from './types';

const MODES: ClusterMode[] = ['apply', 'gitops', 'dry-run'];

/** The target used when `gpu.clusters` is absent: render and store only. */
export const DRY_RUN_TARGET: ClusterTarget = Object.freeze({
  mode: 'dry-run' as const,
});

/**
 * Where services go, read from app-config:
 *
 * ```yaml
 * gpu:
 *   clusters:
 *     - name: prod-eu        # a kubernetes.clusterLocatorMethods cluster, unless kubeconfig is set
 *       mode: apply          # apply | gitops | dry-run; apply when omitted
 *       kubeconfig: /etc/gpu/kubeconfig   # optional (gitops: a read-only credential, also optional)
 *       context: prod-eu                  # optional, with kubeconfig
 *       labels: { region: eu-west-1, cloud: aws, environmentClass: production }   # optional
 *     - name: batch
 *       kubeconfig: /etc/gpu/batch.kubeconfig
 *       multiKueue: { workers: [dev, prod-eu] }   # optional: a Kueue MultiKueue manager of other apply clusters
 * kubernetes:
 *   clusterLocatorMethods:
 *     - type: config
 *       clusters:
 *         - name: prod-eu
 *           url: https://1.2.3.4
 *           authProvider: serviceAccount
 *           serviceAccountToken: ${K8S_TOKEN}
 *           caData: ${K8S_CA}
 * ```
 *
 * A `gitops` cluster with a kubeconfig or a `kubernetes` cluster of its name is read with that credential (give it
 * read-only RBAC: Backstage never writes there): a decommission holds quota until the controller has pruned the
 * objects, and the services' status and drift are read back.
 *
 * Without `gpu.clusters` every service is dry-run, even when the Kubernetes plugin has
 * clusters: applying is opted into per cluster. The first cluster is the default.
 */
export class ClusterConfig {
  /** Reads `gpu.clusters` and the `kubernetes` config it refers to; throws on bad config. */
  static fromConfig(config: Config): ClusterConfig {
    const kubernetesClusters = readKubernetesClusters(config);
    const entries = config.getOptionalConfigArray('gpu.clusters') ?? [];
    const targets = entries.map((entry, index) =>
      readTarget(entry, `gpu.clusters[${index}]`, kubernetesClusters),
    );
    const seen = new Set<string>();
    for (const target of targets) {
      if (seen.has(target.name!)) {
        throw new Error(
          `gpu.clusters lists '${target.name}' twice; cluster names must be unique`,
        );
      }
      seen.add(target.name!);
    }
    checkMultiKueue(targets);
    return new ClusterConfig(targets);
  }

  private constructor(private readonly targets: ClusterTarget[]) {}

  /** Configured clusters in config order; empty in dry-run-only setups. */
  list(): ClusterTarget[] {
    return [...this.targets];
  }

  /** The first configured cluster, or the dry-run target when none is. */
  defaultTarget(): ClusterTarget {
    return this.targets[0] ?? DRY_RUN_TARGET;
  }

  /** The named cluster, or the default one when `name` is omitted. */
  target(name?: string): ClusterTarget {
    if (name === undefined) {
      return this.defaultTarget();
    }
    const target = this.targets.find(t => t.name === name);
    if (!target) {
      const known = this.targets.map(t => t.name).join(', ');
      throw new InputError(
        known
          ? `Unknown cluster '${name}'; configured clusters are ${known}`
          : `Unknown cluster '${name}'; no cluster is configured, services are dry-run`,
      );
    }
    return target;
  }
}

function readTarget(
  entry: Config,
  path: string,
  kubernetesClusters: Map<string, Config>,
): ClusterTarget {
  const target = readConnectionTarget(entry, path, kubernetesClusters);
  const multiKueue = entry.getOptionalConfig('multiKueue');
  // Checked against the other clusters by checkMultiKueue, whatever the mode, so that it can say what is wrong.
  return multiKueue
    ? {
        ...target,
        multiKueue: {
          workers: multiKueue.getOptionalStringArray('workers') ?? [],
        },
      }
    : target;
}

function readConnectionTarget(
  entry: Config,
  path: string,
  kubernetesClusters: Map<string, Config>,
): ClusterTarget {
  const name = entry.getString('name');
  const mode = (entry.getOptionalString('mode') ?? 'apply') as ClusterMode;
  if (!MODES.includes(mode)) {
    throw new Error(
      `${path}.mode must be one of ${MODES.join(', ')}; got '${mode}'`,
    );
  }
  const labels = readLabels(entry);
  if (mode === 'dry-run') {
    return { name, mode, ...(labels && { labels }) };
  }
  const kubeconfig = entry.getOptionalString('kubeconfig');
  if (mode === 'gitops' && !kubeconfig && !kubernetesClusters.has(name)) {
    // A GitOps cluster Backstage does not read: its services follow their pull requests only.
    return { name, mode, ...(labels && { labels }) };
  }
  if (kubeconfig) {
    return {
      name,
      mode,
      ...(labels && { labels }),
      connection: {
        type: 'kubeconfig',
        path: kubeconfig,
        context: entry.getOptionalString('context'),
      },
    };
  }
  const cluster = kubernetesClusters.get(name);
  if (!cluster) {
    throw new Error(
      `${path} '${name}' has mode apply but neither a kubeconfig nor a ` +
        `kubernetes.clusterLocatorMethods cluster (type config) named '${name}'`,
    );
  }
  return {
    name,
    mode,
    ...(labels && { labels }),
    connection: readConnection(cluster, name),
  };
}

function readLabels(entry: Config): ClusterLabels | undefined {
  const labels = entry.getOptionalConfig('labels');
  if (!labels) {
    return undefined;
  }
  const read: ClusterLabels = {};
  for (const key of ['region', 'cloud', 'environmentClass'] as const) {
    const value = labels.getOptionalString(key);
    if (value !== undefined) {
      read[key] = value;
    }
  }
  return read;
}

function readConnection(cluster: Config, name: string): ClusterConnection {
  const authMetadata = cluster.getOptional<JsonObject>('authMetadata') ?? {};
  const authProvider =
    cluster.getOptionalString('authProvider') ??
    stringOrUndefined(authMetadata['kubernetes.io/auth-provider']);
  if (authProvider !== undefined && authProvider !== 'serviceAccount') {
    throw new Error(
      `Kubernetes cluster '${name}' uses authProvider '${authProvider}'; ` +
        `applying GPU services supports 'serviceAccount' (or set gpu.clusters[].kubeconfig)`,
    );
  }
  const serviceAccountToken =
    cluster.getOptionalString('serviceAccountToken') ??
    stringOrUndefined(authMetadata['kubernetes.io/service-account-token']);
  if (!serviceAccountToken) {
    throw new Error(
      `Kubernetes cluster '${name}' has no serviceAccountToken; applying GPU services needs one ` +
        `(or set gpu.clusters[].kubeconfig)`,
    );
  }
  const connection: ServiceAccountConnection = {
    type: 'serviceAccount',
    url: cluster.getString('url'),
    serviceAccountToken,
    caData: cluster.getOptionalString('caData'),
    caFile: cluster.getOptionalString('caFile'),
    skipTLSVerify: cluster.getOptionalBoolean('skipTLSVerify') ?? false,
  };
  return connection;
}

function readKubernetesClusters(config: Config): Map<string, Config> {
  const clusters = new Map<string, Config>();
  const methods =
    config.getOptionalConfigArray('kubernetes.clusterLocatorMethods') ?? [];
  for (const method of methods) {
    if (method.getString('type') !== 'config') {
      continue;
    }
    for (const cluster of method.getOptionalConfigArray('clusters') ?? []) {
      clusters.set(cluster.getString('name'), cluster);
    }
  }
  return clusters;
}

function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/**
 * Checks the MultiKueue managers against the other clusters, naming every inconsistency at once: a manager applies
 * (Backstage writes its AdmissionCheck, MultiKueueClusters and Jobs), has at least one worker, and each worker is
 * another configured `apply` cluster (its credentials become the manager's kubeconfig Secret, which Kueue refuses
 * when it skips TLS verification), not a manager itself, listed once and by one manager only (a worker's batch
 * Jobs go to its manager).
 *
 * @throws Error listing the inconsistencies with their config keys.
 */
export function checkMultiKueue(targets: readonly ClusterTarget[]): void {
  const issues: string[] = [];
  const byName = new Map(targets.map(t => [t.name!, t]));
  const managerOf = new Map<string, string>();
  targets.forEach((manager, index) => {
    if (!manager.multiKueue) return;
    const key = `gpu.clusters[${index}].multiKueue`;
    const name = manager.name!;
    if (manager.mode !== 'apply') {
      issues.push(
        `${key}: cluster '${name}' has mode ${manager.mode}; a MultiKueue manager must be an apply cluster (Backstage applies its admission check, worker clusters and Jobs)`,
      );
    }
    const { workers } = manager.multiKueue;
    if (workers.length === 0) {
      issues.push(`${key}.workers: cluster '${name}' lists no worker cluster`);
    }
    const listed = new Set<string>();
    for (const worker of workers) {
      const where = `${key}.workers: '${worker}'`;
      if (listed.has(worker)) {
        issues.push(`${where} is listed twice`);
        continue;
      }
      listed.add(worker);
      const target = byName.get(worker);
      if (worker === name) {
        issues.push(`${where} is the manager itself`);
        continue;
      }
      if (!target) {
        issues.push(
          `${where} is not a configured cluster (gpu.clusters: ${[
            ...byName.keys(),
          ].join(', ')})`,
        );
        continue;
      }
      if (target.mode !== 'apply' || !target.connection) {
        issues.push(
          `${where} has mode ${target.mode}; a MultiKueue worker must be an apply cluster (its credentials are the manager's kubeconfig for it)`,
        );
      } else if (target.multiKueue) {
        issues.push(
          `${where} is a MultiKueue manager itself; a worker cannot be one`,
        );
      } else if (
        target.connection.type === 'serviceAccount' &&
        target.connection.skipTLSVerify
      ) {
        issues.push(
          `${where} skips TLS verification (skipTLSVerify); Kueue refuses a worker kubeconfig without it: give the cluster's caData or caFile`,
        );
      }
      const other = managerOf.get(worker);
      if (other !== undefined && other !== name) {
        issues.push(
          `${where} is a worker of '${other}' too; a worker's batch Jobs go to one manager`,
        );
      } else {
        managerOf.set(worker, name);
      }
    }
  });
  if (issues.length > 0) {
    throw new Error(
      `The MultiKueue config of gpu.clusters is inconsistent; the backend does not start until it is fixed:\n- ${issues.join(
        '\n- ',
      )}`,
    );
  }
}
