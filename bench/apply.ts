/**
 * Apply benchmark of the gpu backend on a real local control plane (`scripts/cluster`: kube-apiserver, scheduler,
 * controller manager, kwok GPU nodes, Kueue), started by this benchmark with a state directory and ports of its own
 * and the platform of bench/applyPlatform.yaml (layered over app-config.yaml), and stopped at the end, also on
 * failure:
 *
 * 1. The real backend (bench/httpBackend.ts) in apply mode against it; the benchmark creates the team's namespace and
 *    `--services` (default 100) services through `POST /api/gpu/services` (`--concurrency` at a time, default 1),
 *    spread over every tier and both runtimes.
 * 2. **Requests per object**: the API server's `apiserver_request_total` (GET /metrics with the admin kubeconfig)
 *    before and after the creations; the APPLY requests on each applied resource against the objects applied (each
 *    service's stored manifests plus the team's platform/queue objects the backend applies before them). Target: 1.
 * 3. **Apply time**: the same objects re-applied unchanged with the product's applier (KubernetesApplier over
 *    KubernetesClientFactory) and with a plain loop of `KubernetesObjectApi.patch(..., ServerSideApply)`, alternating
 *    `--rounds` (default 5) rounds each, order swapped every round. Target: median ratio <= 1.3.
 * 4. **Reconcile with nothing changed**: the backend's scheduled task `gpu-kueue-reconcile`, triggered once through
 *    the scheduler's API once every Deployment is available; the mutating requests in that window from the API
 *    server's counters (target: 0), after a 10 s quiet window that shows what runs anyway (kwok's node Leases).
 * 5. **Create to admission**: from the POST (sent, and its 201) to the Admitted condition of the Kueue Workload of
 *    the service's pod (pod integration: one Workload per pod, owned by it), and to a watch seeing it.
 *
 * Run from the repository root with `yarn bench:apply [--services <n>] [--concurrency <n>] [--rounds <n>]
 * [--quiet-seconds <s>] [--port-base <port>] [--smoke] [--out <dir>]`; results go to bench/results/apply.json.
 * Needs Go (scripts/cluster builds the control plane on first use).
 */
import { ConfigReader } from '@backstage/config';
import { loadConfig } from '@backstage/config-loader';
import {
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  KubernetesObject,
  KubernetesObjectApi,
  PatchStrategy,
  V1Deployment,
  V1Pod,
  Watch,
} from '@kubernetes/client-node';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  Platform,
  readPlatformConfig,
  Runtime,
  SharingTier,
} from '../plugins/gpu-common/src';
import { FIELD_MANAGER } from '../plugins/gpu-node/src';
import {
  createClusterApplier,
  KubernetesClientFactory,
} from '../plugins/gpu-backend/src/cluster';
import {
  renderKueueObjects,
  renderTeamQueueDependencies,
} from '../plugins/gpu-backend/src/reconciler/renderKueueObjects';
import { KUEUE_RECONCILE_TASK_ID } from '../plugins/gpu-backend/src/reconciler/schedulePlatformReconciler';
import { eventually } from '../plugins/gpu-backend/src/testUtils/localCluster';
import {
  diffCounters,
  httpsGet,
  kindOf,
  mutating,
  readCounters,
  resourceName,
  resourcesOf,
} from './apiServerCounters';
import { parseCli } from './cli';
import { BenchBackend, callBackend, startBackend } from './httpBackend';
import { inParallel, summary } from './stats';

const cli = parseCli();
const REPO_ROOT = resolve(__dirname, '..');
const PLATFORM_FILE = 'bench/applyPlatform.yaml';
const SERVICES = cli.number('services', { full: 100, smoke: 4 });
const ROUNDS = Math.max(1, cli.number('rounds', { full: 5, smoke: 1 }));
/** The smoke run has ports of its own, so it never meets a full run (or the test command's cluster, 16540). */
const PORT_BASE = cli.number('port-base', { full: 16740, smoke: 16840 });
/** POSTs in flight at once while creating the services. */
const CONCURRENCY = Math.max(
  1,
  cli.number('concurrency', { full: 1, smoke: 1 }),
);
const CLUSTER_NAME = 'bench';
const TEAM = 'bench-apply';
const NAMESPACE = 'bench-apply';
const TARGET_REQUESTS_PER_OBJECT = 1;
const TARGET_RATIO = 1.3;
const QUIET_WINDOW_MS =
  cli.number('quiet-seconds', { full: 10, smoke: 2 }) * 1000;
cli.checkOptions(
  'yarn bench:apply [options]: applying to a local control plane of its own: requests per object, apply time, admission',
);
/** kwok's node heartbeats (and the API server's identity lease): renewed all the time, whoever else is busy. */
const LEASES = 'coordination.k8s.io/leases';

/** The demo pool of each tier (bench/applyPlatform.yaml sizes them for the services). */
const TIERS: Array<{ tier: SharingTier; pool: string }> = [
  { tier: 'dedicated', pool: 'l4-ondemand' },
  { tier: 'mig', pool: 'a100-mig' },
  { tier: 'mps', pool: 'l4-mps' },
  { tier: 'time-sliced', pool: 't4-timeslice' },
];
const RUNTIMES: Runtime[] = ['vllm', 'ollama'];
/** A created service's status in the POST's answer. */
const APPLYING_OR_APPLIED = new Set(['applying', 'starting', 'ready']);

function log(message: string) {
  process.stdout.write(
    `[bench:apply ${new Date().toISOString()}] ${message}\n`,
  );
}

function sleep(ms: number) {
  return new Promise(r => setTimeout(r, ms));
}

// --- the local cluster -----------------------------------------------------------------------------------------

interface BenchCluster {
  dir: string;
  kubeconfig: string;
  env: NodeJS.ProcessEnv;
}

async function portFree(port: number): Promise<boolean> {
  return new Promise(ok => {
    const server = createServer();
    server.once('error', () => ok(false));
    server.listen(port, '127.0.0.1', () => server.close(() => ok(true)));
  });
}

function clusterEnv(dir: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    GPU_CLUSTER_DIR: dir,
    GPU_CLUSTER_PORT_BASE: String(PORT_BASE),
    GPU_CLUSTER_CONFIG: `${join(REPO_ROOT, 'app-config.yaml')},${join(
      REPO_ROOT,
      PLATFORM_FILE,
    )}`,
  };
}

async function clusterUp(dir: string): Promise<BenchCluster> {
  for (let port = PORT_BASE; port < PORT_BASE + 9; port++) {
    if (!(await portFree(port))) {
      throw new Error(
        `port ${port} is in use: choose another --port-base (the cluster uses 9 ports from it)`,
      );
    }
  }
  const env = clusterEnv(dir);
  await new Promise<void>((ok, fail) => {
    const child = spawn(join(REPO_ROOT, 'scripts/cluster'), ['up'], {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.on('error', fail);
    child.on('exit', code =>
      code === 0
        ? ok()
        : fail(new Error(`scripts/cluster up exited with ${code}`)),
    );
  });
  return { dir, kubeconfig: join(dir, 'kubeconfig'), env };
}

function clusterDown(dir: string) {
  spawnSync(join(REPO_ROOT, 'scripts/cluster'), ['down'], {
    cwd: REPO_ROOT,
    env: clusterEnv(dir),
    stdio: 'inherit',
  });
}

// --- the objects -----------------------------------------------------------------------------------------------

async function loadBenchPlatform(): Promise<Platform> {
  const paths = [
    join(REPO_ROOT, 'app-config.yaml'),
    join(REPO_ROOT, PLATFORM_FILE),
  ];
  const { appConfigs } = await loadConfig({
    configRoot: REPO_ROOT,
    configTargets: paths.map(path => ({ path })),
  });
  return readPlatformConfig(ConfigReader.fromConfigs(appConfigs));
}

// --- the services ----------------------------------------------------------------------------------------------

interface CreatedService {
  id: string;
  name: string;
  tier: SharingTier;
  runtime: Runtime;
  postSentAt: number;
  postAcceptedAt: number;
  postMs: number;
  manifests: KubernetesObject[];
}

function serviceRequest(index: number) {
  const { tier, pool } = TIERS[index % TIERS.length];
  const runtime = RUNTIMES[Math.floor(index / TIERS.length) % RUNTIMES.length];
  return {
    name: `${tier}-${runtime}-${index}`,
    team: TEAM,
    namespace: NAMESPACE,
    model: 'llama-3.2-3b',
    runtime,
    dtype: 'int4',
    maxModelLen: 2048,
    concurrency: 2,
    replicas: 1,
    environment: 'dev',
    tier,
    pool,
  };
}

interface DriftReportView {
  cluster: string;
  checkedAt: string;
  objects: number;
  checked: boolean;
  applied: boolean;
  inSync?: boolean;
  drifted: unknown[];
  message?: string;
}

async function driftReport(
  backend: BenchBackend,
): Promise<DriftReportView | undefined> {
  const res = await callBackend(backend, 'GET', '/api/gpu/clusters/drift');
  if (res.status !== 200) {
    throw new Error(
      `GET /clusters/drift: ${res.status} ${JSON.stringify(res.body)}`,
    );
  }
  return (res.body.items as DriftReportView[]).find(
    r => r.cluster === CLUSTER_NAME,
  );
}

// --- Kueue workloads -------------------------------------------------------------------------------------------

interface Workload {
  metadata: {
    name: string;
    ownerReferences?: Array<{ kind: string; name: string }>;
  };
  status?: {
    conditions?: Array<{
      type: string;
      status: string;
      lastTransitionTime?: string;
    }>;
  };
}

function admittedAt(workload: Workload): string | undefined {
  return workload.status?.conditions?.find(
    c => c.type === 'Admitted' && c.status === 'True',
  )?.lastTransitionTime;
}

/** Watches the namespace's Workloads, noting when each is first seen admitted (ms resolution, the watcher's clock). */
async function watchAdmissions(kc: KubeConfig, apiVersion: string) {
  const seen = new Map<string, number>();
  let stopped = false;
  let controller: AbortController | undefined;
  const start = async () => {
    controller = await new Watch(kc).watch(
      `/apis/${apiVersion}/namespaces/${NAMESPACE}/workloads`,
      {},
      (_type, object: Workload) => {
        if (admittedAt(object) && !seen.has(object.metadata.name)) {
          seen.set(object.metadata.name, Date.now());
        }
      },
      () => {
        if (!stopped) start().catch(() => undefined);
      },
    );
  };
  await start();
  return {
    seen,
    stop: () => {
      stopped = true;
      controller?.abort();
    },
  };
}

function matches(pod: V1Pod, deployment: V1Deployment): boolean {
  const selector = deployment.spec?.selector.matchLabels ?? {};
  return Object.entries(selector).every(
    ([key, value]) => pod.metadata?.labels?.[key] === value,
  );
}

// --- main ------------------------------------------------------------------------------------------------------

async function main() {
  const t0 = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'gpu-bench-apply-'));
  let backend: BenchBackend | undefined;
  let clusterStarted = false;
  let cleanedUp = false;
  const cleanup = () => {
    if (cleanedUp) return;
    cleanedUp = true;
    backend?.stop();
    if (clusterStarted) {
      log(`stopping the local cluster (${dir})`);
      clusterDown(dir);
    }
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      cleanup();
      process.exit(130);
    });
  }

  try {
    log(
      `starting a local cluster in ${dir} on ports ${PORT_BASE}-${
        PORT_BASE + 8
      }`,
    );
    clusterStarted = true;
    const clusterT0 = Date.now();
    const cluster = await clusterUp(dir);
    const clusterStartSeconds = (Date.now() - clusterT0) / 1000;
    const kc = new KubeConfig();
    kc.loadFromFile(cluster.kubeconfig);
    const core = kc.makeApiClient(CoreV1Api);
    const apps = kc.makeApiClient(AppsV1Api);
    const custom = kc.makeApiClient(CustomObjectsApi);
    const version = JSON.parse(await httpsGet(kc, '/version')).gitVersion;
    const kueueVersion = /sigs\.k8s\.io\/kueue (\S+)/.exec(
      readFileSync(join(REPO_ROOT, 'cluster/go.mod'), 'utf8'),
    )?.[1];
    const nodes = (await core.listNode()).items.length;

    const platform = await loadBenchPlatform();
    const [kueueGroup, kueueVersionName] = platform.kueue.apiVersion.split('/');
    // What the backend applies before each service's manifests (the stored quota it uses is app-config's).
    const queueDependencies = renderTeamQueueDependencies(platform, [], TEAM);
    const kueueObjects = renderKueueObjects(platform, []);

    await core.createNamespace({ body: { metadata: { name: NAMESPACE } } });

    // --- the backend, and the reconciler's first pass over the empty cluster ---
    log('starting the backend in apply mode');
    const beforeBackend = await readCounters(kc);
    backend = await startBackend({
      configFiles: [PLATFORM_FILE],
      // Apply mode needs a durable database (the plugin refuses SQLite in memory): files in the run's directory.
      database: {
        client: 'better-sqlite3',
        connection: { directory: join(dir, 'database') },
      },
      config: {
        gpu: {
          clusters: [
            {
              name: CLUSTER_NAME,
              mode: 'apply',
              kubeconfig: cluster.kubeconfig,
            },
          ],
          // Only the first pass (15 s after start) and the one triggered below.
          reconcile: { frequency: { hours: 24 } },
        },
      },
    });
    const initialReport = await eventually(
      "the reconciler's first pass",
      () => driftReport(backend!),
      { timeoutMs: 90_000, intervalMs: 500 },
    );
    const afterInitial = await readCounters(kc);
    const kueueResources = await resourcesOf(kc, kueueObjects);
    const kueueResourceNames = new Set(kueueResources.values());
    const initialApplies = mutating(diffCounters(beforeBackend, afterInitial))
      .filter(r => kueueResourceNames.has(r.resource))
      .reduce((sum, r) => sum + r.count, 0);
    log(
      `first reconcile: ${initialReport.objects} objects, ${initialReport.drifted.length} missing, ${initialApplies} mutating requests on Kueue objects`,
    );

    // --- creating the services ---
    const admissions = await watchAdmissions(kc, platform.kueue.apiVersion);
    log(`creating ${SERVICES} services through POST /api/gpu/services`);
    const beforeCreate = await readCounters(kc);
    const created: CreatedService[] = new Array(SERVICES);
    const createStartedAt = Date.now();
    const cpuBeforeCreate = backend.cpuSeconds();
    await inParallel(SERVICES, CONCURRENCY, async i => {
      const request = serviceRequest(i);
      const postSentAt = Date.now();
      const start = performance.now();
      const res = await callBackend(backend!, 'POST', '/api/gpu/services', {
        request,
      });
      const postMs = performance.now() - start;
      const postAcceptedAt = Date.now();
      // The backend applies in the POST (201 starting) or right after it (201 applying, then starting).
      if (res.status !== 201 || !APPLYING_OR_APPLIED.has(res.body.status)) {
        throw new Error(
          `POST ${request.name}: ${res.status} ${JSON.stringify(res.body)}`,
        );
      }
      created[i] = {
        id: res.body.id,
        name: request.name,
        tier: request.tier,
        runtime: request.runtime,
        postSentAt,
        postAcceptedAt,
        postMs,
        manifests: [],
      };
    });
    // Every service applied (the counters must hold all its requests): its status past applying.
    await eventually(
      `every service applied`,
      async () => {
        const statuses = await Promise.all(
          created.map(async s => {
            const res = await callBackend(
              backend!,
              'GET',
              `/api/gpu/services/${s.id}`,
            );
            if (res.body.status === 'failed') {
              throw new Error(
                `${s.name} failed: ${JSON.stringify(res.body.statusReason)}`,
              );
            }
            return res.body.status as string;
          }),
        );
        return statuses.every(status => status !== 'applying')
          ? true
          : undefined;
      },
      { timeoutMs: 300_000, intervalMs: 500 },
    );
    const afterCreate = await readCounters(kc);
    const cpuAfterCreate = backend.cpuSeconds();
    const createSeconds = (Date.now() - createStartedAt) / 1000;
    log(`created ${SERVICES} services in ${createSeconds.toFixed(1)} s`);

    // The stored manifests (each GET also reads the service's status from the cluster).
    await inParallel(SERVICES, 8, async i => {
      const res = await callBackend(
        backend!,
        'GET',
        `/api/gpu/services/${created[i].id}`,
      );
      created[i].manifests = res.body.manifests;
    });

    // --- requests per applied object ---
    // Each service's stored manifests. The team's queue objects (ResourceFlavors, Cohort, WorkloadPriorityClasses,
    // ClusterQueue) are counted apart: the backend applied them before every service once, now only when they
    // differ from what it applied last (the reconciler's first pass applied them), so their count is not per service.
    const applied = created.flatMap(s => s.manifests);
    const resources = await resourcesOf(kc, applied);
    const appliedResources = new Set(resources.values());
    const queueResources = new Set(
      (await resourcesOf(kc, queueDependencies)).values(),
    );
    const createRows = diffCounters(beforeCreate, afterCreate);
    const queueDependencyApplyRequests = createRows
      .filter(
        r =>
          r.verb === 'APPLY' &&
          queueResources.has(resourceName(r)) &&
          !appliedResources.has(resourceName(r)),
      )
      .reduce((sum, r) => sum + r.count, 0);
    const byKind = [...resources.entries()].map(([kind, resource]) => {
      const objects = applied.filter(o => kindOf(o) === kind).length;
      const rows = createRows.filter(
        r => resourceName(r) === resource && r.verb === 'APPLY',
      );
      return {
        kind,
        resource,
        objects,
        applyRequests: rows.reduce((sum, r) => sum + r.count, 0),
        failedApplyRequests: rows
          .filter(r => Number(r.code) >= 400)
          .reduce((sum, r) => sum + r.count, 0),
      };
    });
    const applyRequests = byKind.reduce((sum, k) => sum + k.applyRequests, 0);
    const createMutating = mutating(createRows);
    const requestsPerObject = {
      target: TARGET_REQUESTS_PER_OBJECT,
      services: SERVICES,
      objectsPerService: {
        queueDependencies: queueDependencies.length,
        storedManifests: summary(created.map(s => s.manifests.length)),
      },
      objects: applied.length,
      applyRequests,
      perObject: applyRequests / applied.length,
      byKind,
      queueDependencyApplyRequests,
      // Not the backend's: on persistentvolumeclaims these are kwok's PVC stages and the volume binder of the
      // controller manager (the apply-time passes below re-apply the same PVCs and show no such request).
      otherMutatingOnAppliedResources: createMutating.filter(
        r => appliedResources.has(r.resource) && r.verb !== 'APPLY',
      ),
      mutatingOnOtherResources: createMutating.filter(
        r => !appliedResources.has(r.resource),
      ),
    };
    log(
      `requests per object: ${applyRequests} APPLY for ${
        applied.length
      } objects = ${requestsPerObject.perObject.toFixed(
        3,
      )}; ${queueDependencyApplyRequests} APPLY of the team's queue objects`,
    );

    // --- create to admission ---
    const workloadApi = { group: kueueGroup, version: kueueVersionName };
    log('waiting for Kueue to admit every service');
    const joined = await eventually(
      `Kueue admission of ${SERVICES} services`,
      async () => {
        const deployments = (
          await apps.listNamespacedDeployment({ namespace: NAMESPACE })
        ).items;
        const pods = (
          await core.listNamespacedPod({ namespace: NAMESPACE })
        ).items.filter(p => !p.metadata?.deletionTimestamp);
        const workloads = (
          (await custom.listNamespacedCustomObject({
            ...workloadApi,
            namespace: NAMESPACE,
            plural: 'workloads',
          })) as { items: Workload[] }
        ).items;
        const rows = created.map(service => {
          const deploymentName = service.manifests.find(
            m => m.kind === 'Deployment',
          )!.metadata!.name!;
          const deployment = deployments.find(
            d => d.metadata?.name === deploymentName,
          );
          const servicePods = deployment
            ? pods.filter(p => matches(p, deployment))
            : [];
          const owned = workloads.filter(w =>
            w.metadata.ownerReferences?.some(
              o =>
                o.kind === 'Pod' &&
                servicePods.some(p => p.metadata?.name === o.name),
            ),
          );
          const workload = owned[0];
          return {
            service,
            pods: servicePods.length,
            workloads: owned.length,
            workload,
            admitted: workload && admittedAt(workload),
          };
        });
        return rows.every(r => r.admitted) ? rows : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 1000 },
    );
    admissions.stop();
    const fromAccepted = joined.map(
      r => (Date.parse(r.admitted!) - r.service.postAcceptedAt) / 1000,
    );
    const fromSent = joined.map(
      r => (Date.parse(r.admitted!) - r.service.postSentAt) / 1000,
    );
    const observed = (from: 'postAcceptedAt' | 'postSentAt') =>
      joined
        .map(r => {
          const at = admissions.seen.get(r.workload!.metadata.name);
          return at === undefined ? undefined : (at - r.service[from]) / 1000;
        })
        .filter((v): v is number => v !== undefined);
    const admission = {
      services: joined.length,
      podsPerService: summary(joined.map(r => r.pods)),
      workloadsPerService: summary(joined.map(r => r.workloads)),
      fromPostAcceptedSeconds: summary(fromAccepted),
      fromPostSentSeconds: summary(fromSent),
      watchFromPostAcceptedSeconds: summary(observed('postAcceptedAt')),
      watchFromPostSentSeconds: summary(observed('postSentAt')),
      note:
        'Admitted lastTransitionTime has whole-second resolution (truncated): each such value is up to 1 s early. ' +
        'watch*: when this process saw Admitted=True on a watch of the Workloads (ms resolution). The backend ' +
        'applies during the POST, so Kueue can admit before the 201 arrives.',
    };
    log(
      `create to admission (lastTransitionTime): from the 201 median ${admission.fromPostAcceptedSeconds.median} s, from the POST sent median ${admission.fromPostSentSeconds.median} s`,
    );

    // --- the reconciler with nothing changed ---
    log('waiting for every Deployment to be available before the reconcile');
    await eventually(
      'every Deployment available',
      async () => {
        const deployments = (
          await apps.listNamespacedDeployment({ namespace: NAMESPACE })
        ).items;
        return deployments.length >= SERVICES &&
          deployments.every(d => (d.status?.availableReplicas ?? 0) >= 1)
          ? true
          : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 1000 },
    );
    // A quiet window first: what kwok and the controllers do on their own (kwok renews a Lease per simulated node).
    const quietStart = await readCounters(kc);
    const quietStartedAt = Date.now();
    await sleep(QUIET_WINDOW_MS);
    const beforeReconcile = await readCounters(kc);
    const quietMs = Date.now() - quietStartedAt;
    const triggeredAt = Date.now();
    const trigger = await callBackend(
      backend,
      'POST',
      `/api/gpu/.backstage/scheduler/v1/tasks/${KUEUE_RECONCILE_TASK_ID}/trigger`,
    );
    if (trigger.status !== 200) {
      throw new Error(
        `trigger: ${trigger.status} ${JSON.stringify(trigger.body)}`,
      );
    }
    const report = await eventually(
      'the triggered reconcile',
      async () => {
        const r = await driftReport(backend!);
        return r && Date.parse(r.checkedAt) >= triggeredAt ? r : undefined;
      },
      { timeoutMs: 60_000 },
    );
    const afterReconcile = await readCounters(kc);
    const reconcileMs = Date.now() - triggeredAt;
    const reconcileRows = diffCounters(beforeReconcile, afterReconcile);
    const reconcileMutating = mutating(reconcileRows);
    const quietMutating = mutating(diffCounters(quietStart, beforeReconcile));
    // The applier writes the objects themselves, never their status (which Kueue keeps up to date on its own).
    const reconcileOnKueue = reconcileMutating.filter(r =>
      kueueResourceNames.has(r.resource),
    );
    const isLease = (r: { resource: string }) => r.resource === LEASES;
    const leasesPerSecond = (rows: typeof quietMutating, ms: number) =>
      Math.round(
        (rows.filter(isLease).reduce((s, r) => s + r.count, 0) / ms) * 10000,
      ) / 10;
    const reconcile = {
      task: KUEUE_RECONCILE_TASK_ID,
      windowMs: reconcileMs,
      report: {
        objects: report.objects,
        checked: report.checked,
        applied: report.applied,
        inSync: report.inSync,
        drifted: report.drifted.length,
        message: report.message,
      },
      kueueObjects: kueueObjects.map(
        o =>
          `${o.kind}/${
            o.metadata?.namespace ? `${o.metadata.namespace}/` : ''
          }${o.metadata?.name}`,
      ),
      mutatingOnKueueObjects: reconcileOnKueue.reduce((s, r) => s + r.count, 0),
      mutatingExceptLeases: reconcileMutating
        .filter(r => !isLease(r))
        .reduce((s, r) => s + r.count, 0),
      readsOfKueueObjects: reconcileRows
        .filter(
          r => r.verb === 'GET' && kueueResourceNames.has(resourceName(r)),
        )
        .reduce((s, r) => s + r.count, 0),
      mutatingInWindow: reconcileMutating,
      leasePutsPerSecond: leasesPerSecond(reconcileMutating, reconcileMs),
      quietWindow: {
        ms: quietMs,
        mutating: quietMutating,
        leasePutsPerSecond: leasesPerSecond(quietMutating, quietMs),
      },
    };
    log(
      `reconcile with nothing changed: ${reconcile.report.objects} objects compared, in sync ${reconcile.report.inSync}, ${reconcile.mutatingOnKueueObjects} mutating requests on Kueue objects`,
    );

    // --- apply time: product applier against a plain loop, re-applying the same unchanged objects ---
    await backend.stopAndWait();
    backend = undefined;
    const factory = new KubernetesClientFactory();
    const applier = createClusterApplier({
      target: {
        name: CLUSTER_NAME,
        mode: 'apply',
        connection: { type: 'kubeconfig', path: cluster.kubeconfig },
      },
      factory,
    })!;
    // The team's platform/queue objects once, then each service's stored manifests: one apply call each, as the
    // backend makes them (it applies the queue objects before every service; they are the same objects).
    const batches = [queueDependencies, ...created.map(s => s.manifests)];
    const objectsPerPass = batches.reduce((sum, b) => sum + b.length, 0);
    const plainApi = KubernetesObjectApi.makeApiClient(kc);
    const passes = {
      product: async () => {
        for (const batch of batches) await applier.apply(batch);
      },
      plain: async (copies: KubernetesObject[][]) => {
        for (const batch of copies) {
          for (const object of batch) {
            await plainApi.patch(
              object,
              undefined,
              undefined,
              FIELD_MANAGER,
              true,
              PatchStrategy.ServerSideApply,
            );
          }
        }
      },
    };
    const timePass = async (side: 'product' | 'plain') => {
      const copies = side === 'plain' ? structuredClone(batches) : [];
      const before = await readCounters(kc);
      const start = performance.now();
      if (side === 'product') await passes.product();
      else await passes.plain(copies);
      const ms = performance.now() - start;
      const rows = mutating(diffCounters(before, await readCounters(kc)));
      return {
        ms,
        applyRequests: rows
          .filter(r => r.verb === 'APPLY' && appliedResources.has(r.resource))
          .reduce((s, r) => s + r.count, 0),
        otherMutatingOnAppliedResources: rows
          .filter(r => r.verb !== 'APPLY' && appliedResources.has(r.resource))
          .reduce((s, r) => s + r.count, 0),
      };
    };
    log(
      `apply time: ${objectsPerPass} objects per pass, a warm-up pass each, then ${ROUNDS} alternating rounds`,
    );
    await timePass('product');
    await timePass('plain');
    const samples = { product: [] as number[], plain: [] as number[] };
    const requestsPerPass = { product: [] as number[], plain: [] as number[] };
    let otherMutating = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const order: Array<'product' | 'plain'> =
        round % 2 === 0 ? ['product', 'plain'] : ['plain', 'product'];
      for (const side of order) {
        const pass = await timePass(side);
        samples[side].push(pass.ms);
        requestsPerPass[side].push(pass.applyRequests);
        otherMutating += pass.otherMutatingOnAppliedResources;
      }
      log(
        `round ${round + 1}: product ${samples.product[round].toFixed(
          0,
        )} ms, plain ${samples.plain[round].toFixed(0)} ms`,
      );
    }
    const product = summary(samples.product);
    const plain = summary(samples.plain);
    const applyTiming = {
      mode: 're-applying the unchanged objects created above (no-op server-side applies, same field manager, force)',
      objectsPerPass,
      applyCallsPerPass: batches.length,
      rounds: ROUNDS,
      productMs: { ...product, samples: samples.product.map(Math.round) },
      plainMs: { ...plain, samples: samples.plain.map(Math.round) },
      productMsPerObject: product.median / objectsPerPass,
      plainMsPerObject: plain.median / objectsPerPass,
      ratioOfMedians: product.median / plain.median,
      pairedRatios: summary(
        samples.product.map((p, i) => p / samples.plain[i]),
      ),
      applyRequestsPerPass: requestsPerPass,
      otherMutatingOnAppliedResources: otherMutating,
      target: TARGET_RATIO,
    };
    log(
      `apply time: product ${product.median.toFixed(
        0,
      )} ms, plain ${plain.median.toFixed(
        0,
      )} ms, ratio ${applyTiming.ratioOfMedians.toFixed(3)}`,
    );

    const results = {
      date: new Date().toISOString(),
      smoke: cli.smoke,
      machine: { cpus: cpus().length, loadAverage: loadavg() },
      cluster: {
        kubernetes: version,
        kueue: kueueVersion,
        simulatedNodes: nodes,
        startSeconds: clusterStartSeconds,
      },
      services: {
        created: SERVICES,
        byTier: Object.fromEntries(
          TIERS.map(t => [
            t.tier,
            created.filter(s => s.tier === t.tier).length,
          ]),
        ),
        byRuntime: Object.fromEntries(
          RUNTIMES.map(r => [r, created.filter(s => s.runtime === r).length]),
        ),
        concurrency: CONCURRENCY,
        createSeconds,
        postSeconds: summary(created.map(s => s.postMs / 1000)),
        backendCpuMsPerPost:
          cpuBeforeCreate === undefined || cpuAfterCreate === undefined
            ? undefined
            : ((cpuAfterCreate - cpuBeforeCreate) * 1000) / SERVICES,
      },
      initialReconcile: {
        objects: initialReport.objects,
        missing: initialReport.drifted.length,
        mutatingRequestsOnKueueObjects: initialApplies,
      },
      requestsPerObject,
      applyTiming,
      reconcile,
      admission,
      totalSeconds: (Date.now() - t0) / 1000,
    };
    const file = cli.writeResults('apply', results);
    log(`results in ${file} (${results.totalSeconds.toFixed(0)} s)`);
    process.stdout.write(
      `${[
        `requests per applied object: ${requestsPerObject.perObject.toFixed(
          3,
        )} (target ${TARGET_REQUESTS_PER_OBJECT}; ${applyRequests} APPLY / ${
          applied.length
        } objects)`,
        `apply time, product / plain: ${applyTiming.ratioOfMedians.toFixed(
          3,
        )} (target <= ${TARGET_RATIO}; medians ${product.median.toFixed(
          0,
        )} / ${plain.median.toFixed(0)} ms for ${objectsPerPass} objects)`,
        `reconcile with nothing changed: ${reconcile.mutatingOnKueueObjects} mutating requests on Kueue objects, ${reconcile.mutatingExceptLeases} on anything but node Leases (target 0)`,
        `create to admission (Admitted lastTransitionTime): from the 201 median ${admission.fromPostAcceptedSeconds.median} s, p95 ${admission.fromPostAcceptedSeconds.p95} s; from the POST sent median ${admission.fromPostSentSeconds.median} s, p95 ${admission.fromPostSentSeconds.p95} s`,
      ].join('\n')}\n`,
    );
  } finally {
    cleanup();
  }
}

main().catch(error => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
