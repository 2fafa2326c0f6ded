import fs from 'node:fs';
import type { KubernetesObject, V1Job } from '@kubernetes/client-node';
import {
  allowanceUnits,
  Platform,
  Pool,
  TeamAllowance,
} from '@gpu-platform/backstage-plugin-gpu-common';
import {
  batchPools,
  OWNERSHIP_LABELS,
  poolResources,
  renderTeamManifests,
  tolerationsFor,
} from '@gpu-platform/backstage-plugin-gpu-node';
import { ClusterTarget } from '../cluster';
import { kubeConfigFor } from '../cluster/KubernetesClientFactory';
import { renderTeamQueueDependencies } from '../reconciler/renderKueueObjects';

/** Kueue's MultiKueue admission check controller (`kueue.x-k8s.io/multikueue`), also a Job's `spec.managedBy`. */
export const MULTIKUEUE_CONTROLLER = 'kueue.x-k8s.io/multikueue';

/** Name of the manager's AdmissionCheck and MultiKueueConfig. */
export const MULTIKUEUE_CHECK = 'gpu-multikueue';

/** The namespace the manager's Kueue reads MultiKueue kubeconfig Secrets from. */
export const KUEUE_NAMESPACE = 'kueue-system';

/** The Secret in `kueue-system` with the kubeconfig of one worker. */
export function multiKueueSecretName(worker: string): string {
  return `gpu-multikueue-${worker}`;
}

/** The MultiKueue manager (a configured cluster with `multiKueue`) whose workers include `cluster`. */
export function multiKueueManagerOf(
  clusters: readonly ClusterTarget[],
  cluster: string | undefined,
): ClusterTarget | undefined {
  if (cluster === undefined) return undefined;
  return clusters.find(c => c.multiKueue?.workers.includes(cluster));
}

/**
 * The pools a batch job submitted to `manager` may run on: the batch pools (spot, whole GPUs) of its workers with
 * the requested pool's GPU model and resource and at least `gpusPerPod` GPUs a node, where the team has quota; the
 * requested pool first, then in config order.
 */
export function multiKueueCandidatePools(
  platform: Platform,
  manager: ClusterTarget,
  requested: Pool,
  gpusPerPod: number,
  allowance: TeamAllowance | undefined,
): Pool[] {
  const workers = new Set(manager.multiKueue?.workers ?? []);
  const resource = (pool: Pool) => poolResources(platform, pool)[0]?.name;
  const candidates = batchPools(platform).filter(
    pool =>
      pool.cluster !== undefined &&
      workers.has(pool.cluster) &&
      pool.gpuModel === requested.gpuModel &&
      resource(pool) === resource(requested) &&
      pool.gpusPerNode >= gpusPerPod &&
      (allowance ? allowanceUnits(allowance, pool.name) : 0) > 0,
  );
  return [
    ...candidates.filter(p => p.name === requested.name),
    ...candidates.filter(p => p.name !== requested.name),
  ];
}

/**
 * The Job a MultiKueue manager dispatches: `spec.managedBy: kueue.x-k8s.io/multikueue` (the manager's Job
 * controller leaves it alone; Kueue creates it on the worker that admits it and mirrors its status back), its pods
 * selecting only the node labels every candidate pool shares and tolerating each one's taints, so the worker's Kueue
 * can admit it on its own pool's flavor (whose labels and tolerations Kueue injects there).
 */
export function multiKueueJob(job: V1Job, candidates: readonly Pool[]): V1Job {
  const shared = Object.fromEntries(
    Object.entries(candidates[0]?.nodeLabels ?? {}).filter(([key, value]) =>
      candidates.every(pool => pool.nodeLabels[key] === value),
    ),
  );
  const tolerations = new Map(
    candidates
      .flatMap(pool => tolerationsFor(pool.nodeTaints))
      .map(t => [JSON.stringify(t), t]),
  );
  const template = job.spec!.template;
  return {
    ...job,
    spec: {
      ...job.spec!,
      managedBy: MULTIKUEUE_CONTROLLER,
      template: {
        ...template,
        spec: {
          ...template.spec!,
          nodeSelector: Object.keys(shared).length > 0 ? shared : undefined,
          tolerations:
            tolerations.size > 0 ? [...tolerations.values()] : undefined,
        },
      },
    },
  };
}

type KubeconfigCluster = {
  server: string;
  'certificate-authority-data'?: string;
};
type KubeconfigUser = {
  token?: string;
  'client-certificate-data'?: string;
  'client-key-data'?: string;
};

function fileData(path: string | undefined): string | undefined {
  return path ? fs.readFileSync(path).toString('base64') : undefined;
}

/**
 * The kubeconfig the manager's Kueue reaches a worker with, from the worker's configured credentials (its kubeconfig
 * file's context, or its service account token and CA). Kueue accepts only inline data (no file paths, token files,
 * exec or auth-provider plugins, no skipped TLS verification), so files are read in.
 *
 * @throws Error when the credentials cannot be given inline.
 */
export function workerKubeconfig(worker: ClusterTarget): string {
  const name = worker.name!;
  if (!worker.connection) {
    throw new Error(
      `MultiKueue worker '${name}' has no credentials (mode ${worker.mode})`,
    );
  }
  const kc = kubeConfigFor(name, worker.connection);
  const cluster = kc.getCurrentCluster();
  const user = kc.getCurrentUser();
  if (!cluster || !user) {
    throw new Error(
      `MultiKueue worker '${name}': its kubeconfig has no current cluster and user`,
    );
  }
  if (cluster.skipTLSVerify) {
    throw new Error(
      `MultiKueue worker '${name}' skips TLS verification; Kueue refuses such a kubeconfig`,
    );
  }
  if (user.exec || user.authProvider || user.username || user.password) {
    throw new Error(
      `MultiKueue worker '${name}': Kueue accepts a token or a client certificate only (no exec, auth-provider or basic auth)`,
    );
  }
  const kubeCluster: KubeconfigCluster = {
    server: cluster.server,
    'certificate-authority-data': cluster.caData ?? fileData(cluster.caFile),
  };
  const kubeUser: KubeconfigUser = {
    token: user.token,
    'client-certificate-data': user.certData ?? fileData(user.certFile),
    'client-key-data': user.keyData ?? fileData(user.keyFile),
  };
  const strip = <T extends object>(o: T): T =>
    Object.fromEntries(
      Object.entries(o).filter(([, v]) => v !== undefined),
    ) as T;
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster: strip(kubeCluster) }],
    users: [{ name: 'backstage-gpu', user: strip(kubeUser) }],
    contexts: [{ name, context: { cluster: name, user: 'backstage-gpu' } }],
    'current-context': name,
  });
}

const PLATFORM_LABELS = {
  [OWNERSHIP_LABELS.managedBy]: 'backstage-gpu',
  [OWNERSHIP_LABELS.scope]: 'platform',
};

/**
 * What a MultiKueue manager needs before it can take a team's batch Job, in apply order:
 *
 * - per worker, the Secret `gpu-multikueue-<worker>` in `kueue-system` (key `kubeconfig`) and the MultiKueueCluster
 *   `<worker>` reading it; the MultiKueueConfig and the AdmissionCheck `gpu-multikueue` (controller
 *   `kueue.x-k8s.io/multikueue`) listing them;
 * - the team's queue objects as its workers' Kueue has them for the candidate pools (the pools' ResourceFlavors,
 *   priority classes, the ClusterQueue `gpu-<team>` with the team's quota on each candidate pool), the ClusterQueue
 *   with the admission check, and the team's LocalQueues. The manager reserves the team's quota on some pool's
 *   flavor; the worker that admits the Job decides where it runs.
 */
export function renderMultiKueueManagerObjects(options: {
  platform: Platform;
  allowances: readonly TeamAllowance[];
  team: string;
  workers: ReadonlyArray<{ name: string; kubeconfig: string }>;
  candidates: readonly Pool[];
}): KubernetesObject[] {
  const { platform, team, workers, candidates } = options;
  const names = new Set(candidates.map(p => p.name));
  const onCandidates = <T>(quota: Record<string, T>): Record<string, T> =>
    Object.fromEntries(
      Object.entries(quota).filter(([pool]) => names.has(pool)),
    );
  const teamHere = platform.teams.find(t => t.name === team);
  const managerPlatform: Platform = {
    ...platform,
    pools: [...candidates],
    teams: teamHere
      ? [{ ...teamHere, gpuQuota: onCandidates(teamHere.gpuQuota) }]
      : [],
  };
  const allowances = options.allowances
    .filter(a => a.team === team)
    .map(a => ({ ...a, gpuUnits: onCandidates(a.gpuUnits) }));
  const queueObjects = renderTeamQueueDependencies(
    managerPlatform,
    allowances,
    team,
  ).map(object =>
    object.kind === 'ClusterQueue'
      ? {
          ...object,
          spec: {
            ...(object as { spec: object }).spec,
            admissionChecksStrategy: {
              admissionChecks: [{ name: MULTIKUEUE_CHECK }],
            },
          },
        }
      : object,
  );
  const kueue = platform.kueue.apiVersion;
  const metadata = (name: string, namespace?: string) => ({
    name,
    ...(namespace ? { namespace } : {}),
    labels: PLATFORM_LABELS,
  });
  // Literal objects with kind-specific fields (spec, data) that KubernetesObject does not name.
  const objects = [
    ...workers.flatMap(worker => [
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: metadata(multiKueueSecretName(worker.name), KUEUE_NAMESPACE),
        type: 'Opaque',
        // `data`, not `stringData`: the platform reconciler compares it with what the API server stores.
        data: {
          kubeconfig: Buffer.from(worker.kubeconfig).toString('base64'),
        },
      },
      {
        apiVersion: kueue,
        kind: 'MultiKueueCluster',
        metadata: metadata(worker.name),
        spec: {
          clusterSource: {
            kubeConfig: {
              locationType: 'Secret',
              location: multiKueueSecretName(worker.name),
            },
          },
        },
      },
    ]),
    {
      apiVersion: kueue,
      kind: 'MultiKueueConfig',
      metadata: metadata(MULTIKUEUE_CHECK),
      spec: { clusters: workers.map(w => w.name) },
    },
    {
      apiVersion: kueue,
      kind: 'AdmissionCheck',
      metadata: metadata(MULTIKUEUE_CHECK),
      spec: {
        controllerName: MULTIKUEUE_CONTROLLER,
        parameters: {
          apiGroup: 'kueue.x-k8s.io',
          kind: 'MultiKueueConfig',
          name: MULTIKUEUE_CHECK,
        },
      },
    },
    ...queueObjects,
    ...renderTeamManifests(managerPlatform, team),
  ] as KubernetesObject[];
  return objects;
}

/**
 * The batch pools of `manager`'s workers where the team has quota, whatever their GPU model: what the team's
 * ClusterQueue on the manager covers (a Job's own candidates, {@link multiKueueCandidatePools}, are among them).
 */
export function multiKueueTeamPools(
  platform: Platform,
  manager: ClusterTarget,
  allowance: TeamAllowance | undefined,
): Pool[] {
  const workers = new Set(manager.multiKueue?.workers ?? []);
  return batchPools(platform).filter(
    pool =>
      pool.cluster !== undefined &&
      workers.has(pool.cluster) &&
      (allowance ? allowanceUnits(allowance, pool.name) : 0) > 0,
  );
}

/**
 * Every object a MultiKueue manager holds ({@link renderMultiKueueManagerObjects}) for every team with quota on a
 * batch pool of its workers, each object once and no Namespace: what the platform reconciler keeps on the manager.
 * Nothing when no team has such quota.
 */
export function renderMultiKueueManagerPlatform(options: {
  platform: Platform;
  allowances: readonly TeamAllowance[];
  manager: ClusterTarget;
  workers: ReadonlyArray<{ name: string; kubeconfig: string }>;
}): KubernetesObject[] {
  const { platform, allowances, manager, workers } = options;
  const seen = new Set<string>();
  const objects: KubernetesObject[] = [];
  for (const allowance of allowances) {
    const pools = multiKueueTeamPools(platform, manager, allowance);
    if (pools.length === 0) continue;
    for (const object of renderMultiKueueManagerObjects({
      platform,
      allowances,
      team: allowance.team,
      workers,
      candidates: pools,
    })) {
      const { namespace = '', name } = object.metadata ?? {};
      const key = `${object.apiVersion} ${object.kind} ${namespace}/${name}`;
      if (object.kind === 'Namespace' || seen.has(key)) continue;
      seen.add(key);
      objects.push(object);
    }
  }
  return objects;
}
