/**
 * Two backend replicas on one PostgreSQL against a running local control plane (issue 21's "must show"): the real
 * backend (bench/httpBackend.ts) started twice in apply mode on the same databases (`--postgres`, default
 * BACKSTAGE_TEST_DATABASE_POSTGRES15_CONNECTION_STRING, else postgres:postgres@127.0.0.1:5432; databases of the run's
 * own prefix, dropped at the end) and the same cluster (`--kubeconfig`, default `$GPU_TEST_KUBECONFIG`, else
 * `$GPU_CLUSTER_DIR/kubeconfig`).
 *
 * 1. One warm-up service through each replica (each has applied the team's LocalQueue once and remembers it), then
 *    the API server's `apiserver_request_total` is read.
 * 2. A burst of `--services` creates, `--concurrency` in flight, alternating between the replicas. Once
 *    B has answered `--kill-after` of them, replica B is killed with SIGKILL (its process group: no shutdown
 *    hook runs). A POST that B never answered is sent again to A with the same `requestKey` (the client's retry, which
 *    may find the service B recorded); every later POST goes to A.
 * 3. Wait until every service is `ready` (Available) or `failed` with a reason: what B had claimed and not applied
 *    reaches A only through the resume of interrupted applies, after `gpu.apply.resumeAfter` (`--resume-after`
 *    seconds).
 * 4. Counts: APPLY requests per resource against the distinct objects of the burst's services. A service whose apply
 *    B had claimed when it died is resumed by A (its audit trail has a status write by `system:gpu-apply-resume`);
 *    its objects may have been sent by B before the kill and again by the resume, so they are allowed one more APPLY
 *    each. Every other object: exactly one APPLY, however many replicas heard of it through their watches. The
 *    ledger, read from the database: one `held` reservation per service that is neither deleted nor rejected, none
 *    for the others, and one service per requested name.
 *
 * The run fails (after writing its results) when a limit breaks: APPLY outside those bounds, a service neither
 * Available nor failed with a reason, a reservation lost or doubled, a name stored twice.
 *
 * `yarn bench:two-replicas [--kubeconfig <file>] [--postgres <url>] [--services 100] [--concurrency 8]
 * [--kill-after 20] [--resume-after 20] [--smoke] [--out <dir>]`; results go to bench/results/two-replicas.json. The
 * team `bench-apply` (bench/applyPlatform.yaml: the full size needs a cluster whose nodes come from it,
 * `GPU_CLUSTER_CONFIG=app-config.yaml,bench/applyPlatform.yaml scripts/cluster up`) gets the namespace `bench-apply`,
 * deleted at the end.
 */
import {
  CoreV1Api,
  KubeConfig,
  KubernetesObject,
} from '@kubernetes/client-node';
import knexFactory, { Knex } from 'knex';
import { existsSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { randomUUID } from 'node:crypto';
import {
  diffCounters,
  httpsGet,
  kindOf,
  readCounters,
  resourceName,
  resourcesOf,
} from './apiServerCounters';
import { parseCli } from './cli';
import { BenchBackend, callBackend, startBackend } from './httpBackend';
import { inParallel } from './stats';
import { defaultKubeconfig } from './localKubeconfig';

const cli = parseCli();
const PLATFORM_FILE = 'bench/applyPlatform.yaml';
const CLUSTER_NAME = 'bench';
const TEAM = 'bench-apply';
const NAMESPACE = 'bench-apply';
const SERVICES = cli.number('services', { full: 100, smoke: 6 });
const CONCURRENCY = Math.max(
  1,
  cli.number('concurrency', { full: 8, smoke: 4 }),
);
/** Creates replica B answers before it is killed (it gets every other one until then). */
const KILL_AFTER = cli.number('kill-after', {
  full: Math.round(SERVICES * 0.2),
  smoke: 2,
});
const RESUME_AFTER_S = cli.number('resume-after', { full: 20, smoke: 10 });
const SETTLE_TIMEOUT_S = cli.number('settle-timeout', {
  full: 900,
  smoke: 240,
});
const POSTGRES_URL = cli.string(
  'postgres',
  process.env.BACKSTAGE_TEST_DATABASE_POSTGRES15_CONNECTION_STRING ??
    'postgresql://postgres:postgres@127.0.0.1:5432',
);
/** The local cluster's kubeconfig. */
const KUBECONFIG = cli.string('kubeconfig', defaultKubeconfig());
cli.checkOptions(
  'yarn bench:two-replicas [options]: two backends on one PostgreSQL and a running local control plane (--kubeconfig, GPU_TEST_KUBECONFIG or GPU_CLUSTER_DIR)',
);
/** Smoke runs on the test command's cluster (the nodes of app-config.yaml): the shared tiers, which have room. */
const TIERS = cli.smoke
  ? [
      { tier: 'mps', pool: 'l4-mps' },
      { tier: 'time-sliced', pool: 't4-timeslice' },
    ]
  : [
      { tier: 'dedicated', pool: 'l4-ondemand' },
      { tier: 'mig', pool: 'a100-mig' },
      { tier: 'mps', pool: 'l4-mps' },
      { tier: 'time-sliced', pool: 't4-timeslice' },
    ];
const RUNTIMES = ['vllm', 'ollama'];
const RESUME_ACTOR = 'system:gpu-apply-resume';

function log(message: string) {
  process.stdout.write(
    `[bench:two-replicas ${new Date().toISOString()}] ${message}\n`,
  );
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

async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs: number,
  intervalMs = 1000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) {
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await new Promise(r => setTimeout(r, intervalMs));
  }
}

interface ListedService {
  id: string;
  name: string;
  status: string;
  reason?: string;
  statusReason?: string;
}

async function listServices(backend: BenchBackend): Promise<ListedService[]> {
  const items: ListedService[] = [];
  let cursor: string | undefined;
  for (;;) {
    const res = await callBackend(
      backend,
      'GET',
      `/api/gpu/services?team=${TEAM}&limit=200${
        cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''
      }`,
    );
    if (res.status !== 200) {
      throw new Error(
        `GET /services: ${res.status} ${JSON.stringify(res.body)}`,
      );
    }
    items.push(...res.body.items);
    cursor = res.body.nextCursor;
    if (!cursor) return items;
  }
}

async function deleteNamespace(core: CoreV1Api) {
  try {
    await core.deleteNamespace({ name: NAMESPACE });
  } catch {
    return; // not there
  }
  await waitFor(
    `namespace ${NAMESPACE} deleted`,
    async () => {
      try {
        await core.readNamespace({ name: NAMESPACE });
        return undefined;
      } catch {
        return true;
      }
    },
    180_000,
  );
}

async function main() {
  const t0 = Date.now();
  const kubeconfig = KUBECONFIG;
  if (!kubeconfig || !existsSync(kubeconfig)) {
    throw new Error(
      `no local cluster: start one (GPU_CLUSTER_DIR=... GPU_CLUSTER_PORT_BASE=... scripts/cluster up) and pass ` +
        `--kubeconfig <dir>/kubeconfig (or set GPU_TEST_KUBECONFIG or GPU_CLUSTER_DIR); got '${kubeconfig}'`,
    );
  }
  if (KILL_AFTER >= SERVICES / 2) {
    throw new Error('--kill-after must be below half of --services');
  }
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  const core = kc.makeApiClient(CoreV1Api);
  const prefix = `bench_two_${process.pid}_${Date.now()}_`;
  const admin = knexFactory({ client: 'pg', connection: POSTGRES_URL });
  let gpuDb: Knex | undefined;
  const backends: BenchBackend[] = [];
  let namespaceCreated = false;
  let cleanedUp = false;
  const cleanup = async () => {
    if (cleanedUp) return;
    cleanedUp = true;
    for (const backend of backends) await backend.stopAndWait();
    await gpuDb?.destroy();
    if (namespaceCreated) {
      log(`deleting namespace ${NAMESPACE}`);
      await core
        .deleteNamespace({ name: NAMESPACE })
        .catch(error => log(`namespace ${NAMESPACE} not deleted: ${error}`));
    }
    try {
      const { rows } = await admin.raw(
        'SELECT datname FROM pg_database WHERE datname LIKE ?',
        [`${prefix}%`],
      );
      for (const { datname } of rows as Array<{ datname: string }>) {
        await admin.raw('DROP DATABASE IF EXISTS ?? WITH (FORCE)', [datname]);
      }
    } finally {
      await admin.destroy();
    }
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      cleanup().finally(() => process.exit(130));
    });
  }

  try {
    const version = JSON.parse(await httpsGet(kc, '/version')).gitVersion;
    const nodes = (await core.listNode()).items.length;
    log(
      `cluster ${kc.getCurrentCluster()!.server} (${version}, ${nodes} nodes)`,
    );
    await deleteNamespace(core); // a previous run's, if it was interrupted
    await core.createNamespace({ body: { metadata: { name: NAMESPACE } } });
    namespaceCreated = true;

    const backendOptions = {
      configFiles: [PLATFORM_FILE],
      database: { client: 'pg', connection: POSTGRES_URL, prefix },
      config: {
        gpu: {
          clusters: [{ name: CLUSTER_NAME, mode: 'apply', kubeconfig }],
          reconcile: { frequency: { hours: 24 } },
          apply: { resumeAfter: { seconds: RESUME_AFTER_S } },
          statusRefresh: { frequency: { seconds: 5 } },
        },
      },
    };
    // One after the other: the first runs the migrations.
    log('starting replica A, then replica B, on one PostgreSQL');
    const a = await startBackend(backendOptions);
    backends.push(a);
    const b = await startBackend(backendOptions);
    backends.push(b);
    const { rows: gpuDatabases } = await admin.raw(
      'SELECT datname FROM pg_database WHERE datname = ?',
      [`${prefix}gpu`],
    );
    if (gpuDatabases.length !== 1) {
      throw new Error(
        `no database ${prefix}gpu: where does the gpu plugin keep its data?`,
      );
    }
    const gpuUrl = new URL(POSTGRES_URL);
    gpuUrl.pathname = `/${prefix}gpu`;
    gpuDb = knexFactory({ client: 'pg', connection: gpuUrl.toString() });
    await waitFor(
      "the platform loop's first pass",
      async () => {
        const res = await callBackend(a, 'GET', '/api/gpu/clusters/drift');
        return (res.body?.items ?? []).find(
          (r: { cluster: string }) => r.cluster === CLUSTER_NAME,
        );
      },
      120_000,
      500,
    );

    // --- 1. a warm-up service through each replica ---
    const requests = new Map<
      string,
      { request: ReturnType<typeof serviceRequest>; requestKey: string }
    >();
    const post = async (backend: BenchBackend, index: number) => {
      const entry = requests.get(String(index)) ?? {
        request: serviceRequest(index),
        requestKey: randomUUID(),
      };
      requests.set(String(index), entry);
      const res = await callBackend(backend, 'POST', '/api/gpu/services', {
        request: entry.request,
        requestKey: entry.requestKey,
      });
      if (res.status !== 201 && res.status !== 200) {
        throw new Error(
          `POST ${entry.request.name}: ${res.status} ${JSON.stringify(
            res.body,
          )}`,
        );
      }
      return res.body.id as string;
    };
    const warmUp = [await post(a, SERVICES), await post(b, SERVICES + 1)];
    await waitFor(
      'the warm-up services applied',
      async () => {
        const listed = await listServices(a);
        return warmUp.every(id =>
          ['starting', 'ready'].includes(
            listed.find(s => s.id === id)?.status ?? '',
          ),
        )
          ? true
          : undefined;
      },
      180_000,
    );
    const before = await readCounters(kc);

    // --- 2. the burst, split across both, B killed mid-burst ---
    log(
      `${SERVICES} creates, ${CONCURRENCY} in flight, alternating between A and B; B killed with SIGKILL after ${KILL_AFTER} answers`,
    );
    let killedAt: number | undefined;
    let killing: Promise<void> | undefined;
    const sentTo = { a: 0, b: 0 };
    const answeredBy = { a: 0, b: 0 };
    let retriedOnA = 0;
    const burstStartedAt = Date.now();
    await inParallel(SERVICES, CONCURRENCY, async i => {
      const toB = i % 2 === 1 && killing === undefined;
      if (toB) {
        sentTo.b++;
        try {
          await post(b, i);
          answeredBy.b++;
        } catch (error) {
          if (killing === undefined) throw error;
          // B died with this POST in flight: the client sends it again to A, with the same request key.
          retriedOnA++;
          await post(a, i);
          answeredBy.a++;
        }
      } else {
        sentTo.a++;
        await post(a, i);
        answeredBy.a++;
      }
      if (answeredBy.b === KILL_AFTER && killing === undefined) {
        killedAt = Date.now();
        log(
          `SIGKILL to replica B after it answered ${answeredBy.b} creates (A ${answeredBy.a})`,
        );
        killing = b.kill('SIGKILL');
      }
    });
    await killing;
    const burstSeconds = (Date.now() - burstStartedAt) / 1000;
    log(
      `burst answered in ${burstSeconds.toFixed(1)} s: A ${answeredBy.a}, B ${
        answeredBy.b
      }, ${retriedOnA} sent again to A after the kill`,
    );

    // --- 3. every service Available or failed with a reason ---
    const settled = await waitFor(
      'every service Available or failed with a reason',
      async () => {
        const listed = await listServices(a);
        const mine = listed.filter(s => !warmUp.includes(s.id));
        const open = mine.filter(
          s => s.status !== 'ready' && !(s.status === 'failed' && s.reason),
        );
        if (open.length === 0 && mine.length >= SERVICES) return mine;
        log(
          `${mine.length} services, ${open.length} not settled (${[
            ...new Set(
              open.map(s => `${s.status}/${s.reason}: ${s.statusReason ?? ''}`),
            ),
          ].join(', ')})`,
        );
        return undefined;
      },
      SETTLE_TIMEOUT_S * 1000,
      5000,
    );
    const settleSeconds = (Date.now() - (killedAt ?? burstStartedAt)) / 1000;
    const after = await readCounters(kc);

    // --- 4. APPLY per object, resumed services, the ledger ---
    const manifests = new Map<string, KubernetesObject[]>();
    await inParallel(settled.length, 4, async i => {
      const res = await callBackend(
        a,
        'GET',
        `/api/gpu/services/${settled[i].id}`,
      );
      if (res.status !== 200)
        throw new Error(`GET ${settled[i].id}: ${res.status}`);
      manifests.set(settled[i].id, res.body.manifests ?? []);
    });
    const resumedIds = new Set(
      (
        await gpuDb('audit_events')
          .where({ action: 'service.status', actor: RESUME_ACTOR })
          .whereIn(
            'subject_id',
            settled.map(s => s.id),
          )
          .distinct('subject_id')
      ).map((r: { subject_id: string }) => r.subject_id),
    );
    const keyOf = (o: KubernetesObject) =>
      `${kindOf(o)}/${o.metadata?.namespace}/${o.metadata?.name}`;
    const warmUpKeys = new Set<string>();
    for (const id of warmUp) {
      const res = await callBackend(a, 'GET', `/api/gpu/services/${id}`);
      for (const o of (res.body.manifests ?? []) as KubernetesObject[]) {
        warmUpKeys.add(keyOf(o));
      }
    }
    // The burst's distinct objects (the team's LocalQueue is the warm-ups' too: both replicas applied it before).
    const objects = new Map<
      string,
      { object: KubernetesObject; resumed: boolean }
    >();
    for (const [id, list] of manifests) {
      for (const o of list) {
        const key = keyOf(o);
        if (warmUpKeys.has(key)) continue;
        const resumed =
          resumedIds.has(id) || objects.get(key)?.resumed === true;
        objects.set(key, { object: o, resumed });
      }
    }
    const all = [...objects.values()].map(o => o.object);
    const resources = await resourcesOf(kc, [
      ...all,
      ...[...manifests.values()].flat(),
    ]);
    const rows = diffCounters(before, after).filter(r => r.verb === 'APPLY');
    const byKind = [...resources.entries()].map(([kind, resource]) => {
      const ofKind = [...objects.values()].filter(
        o => kindOf(o.object) === kind,
      );
      const resumedObjects = ofKind.filter(o => o.resumed).length;
      const applyRequests = rows
        .filter(r => resourceName(r) === resource)
        .reduce((sum, r) => sum + r.count, 0);
      return {
        kind,
        resource,
        objects: ofKind.length,
        objectsOfResumedServices: resumedObjects,
        applyRequests,
        ok:
          applyRequests >= ofKind.length &&
          applyRequests <= ofKind.length + resumedObjects,
      };
    });
    const applyRequests = byKind.reduce((s, k) => s + k.applyRequests, 0);
    const resumedObjects = byKind.reduce(
      (s, k) => s + k.objectsOfResumedServices,
      0,
    );
    const notResumedServices = settled.filter(
      s => !resumedIds.has(s.id),
    ).length;
    log(
      `${applyRequests} APPLY for ${objects.size} objects of ${settled.length} services (${resumedIds.size} resumed by A after the kill, ${resumedObjects} of their objects)`,
    );

    const serviceRows: Array<{ id: string; name: string; status: string }> =
      await gpuDb('services')
        .where({ team: TEAM })
        .select('id', 'name', 'status');
    const reservationRows: Array<{ service_id: string; state: string }> =
      await gpuDb('reservations')
        .where({ team: TEAM })
        .select('service_id', 'state');
    const heldOf = (id: string) =>
      reservationRows.filter(r => r.service_id === id && r.state === 'held')
        .length;
    const live = serviceRows.filter(
      s => !['deleted', 'rejected'].includes(s.status),
    );
    const lost = live.filter(s => heldOf(s.id) === 0).map(s => s.name);
    const doubled = live.filter(s => heldOf(s.id) > 1).map(s => s.name);
    const heldByGone = serviceRows
      .filter(
        s => ['deleted', 'rejected'].includes(s.status) && heldOf(s.id) > 0,
      )
      .map(s => s.name);
    const names = serviceRows.map(s => s.name);
    const namesStoredTwice = names.filter((n, i) => names.indexOf(n) !== i);
    const requestedNames = [...requests.values()].map(r => r.request.name);
    const namesMissing = requestedNames.filter(n => !names.includes(n));

    const statusCounts: Record<string, number> = {};
    for (const s of settled) {
      const key = s.status === 'failed' ? `failed/${s.reason}` : s.status;
      statusCounts[key] = (statusCounts[key] ?? 0) + 1;
    }
    const available = settled.filter(s => s.status === 'ready').length;
    const failed = settled
      .filter(s => s.status === 'failed')
      .map(s => ({
        name: s.name,
        reason: s.reason ?? '',
        statusReason: s.statusReason ?? '',
      }));

    const limits = [
      {
        name: 'APPLY requests per object: exactly 1, one more at most for the objects of services resumed after the kill',
        limit: `${objects.size} to ${objects.size + resumedObjects}`,
        measured: applyRequests,
        ok: byKind.every(k => k.ok),
      },
      {
        name: 'services Available or failed with a reason',
        limit: `= ${settled.length}`,
        measured: available + failed.filter(f => f.reason).length,
        ok: available + failed.filter(f => f.reason).length === settled.length,
      },
      {
        name: 'services without their held reservation (lost)',
        limit: '= 0',
        measured: lost.length + heldByGone.length,
        ok: lost.length === 0 && heldByGone.length === 0,
      },
      {
        name: 'services with more than one held reservation, or stored twice (doubled)',
        limit: '= 0',
        measured: doubled.length + namesStoredTwice.length,
        ok: doubled.length === 0 && namesStoredTwice.length === 0,
      },
      {
        name: 'requested services stored',
        limit: `= ${requestedNames.length}`,
        measured: requestedNames.length - namesMissing.length,
        ok: namesMissing.length === 0,
      },
    ];
    const results = {
      date: new Date().toISOString(),
      smoke: cli.smoke,
      machine: { cpus: cpus().length, loadAverage: loadavg() },
      cluster: { kubernetes: version, simulatedNodes: nodes },
      replicas: 2,
      database: 'postgres',
      resumeAfterSeconds: RESUME_AFTER_S,
      burst: {
        services: SERVICES,
        concurrency: CONCURRENCY,
        sentTo,
        answeredBy,
        killedAfterAnswers: KILL_AFTER,
        sentAgainToA: retriedOnA,
        seconds: burstSeconds,
      },
      outcome: {
        services: settled.length,
        available,
        failed,
        byStatus: statusCounts,
        settledSecondsAfterKill: settleSeconds,
      },
      applies: {
        objects: objects.size,
        applyRequests,
        resumedServices: resumedIds.size,
        servicesNotResumed: notResumedServices,
        objectsOfResumedServices: resumedObjects,
        extraApplyRequests: applyRequests - objects.size,
        byKind,
      },
      ledger: {
        services: serviceRows.length,
        live: live.length,
        heldReservations: reservationRows.filter(r => r.state === 'held')
          .length,
        lost,
        doubled,
        heldByDeletedOrRejected: heldByGone,
        namesStoredTwice,
        namesMissing,
      },
      limits,
      totalSeconds: (Date.now() - t0) / 1000,
    };
    const file = cli.writeResults('two-replicas', results);
    log(`results in ${file} (${results.totalSeconds.toFixed(0)} s)`);
    process.stdout.write(
      `${[
        `two replicas, ${SERVICES} creates (A ${answeredBy.a}, B ${answeredBy.b}), B killed after ${KILL_AFTER}: ${available} Available, ${failed.length} failed`,
        `APPLY ${applyRequests} for ${objects.size} objects (${resumedIds.size} services resumed after the kill, ${resumedObjects} objects)`,
        `ledger: ${live.length} live services, ${results.ledger.heldReservations} held reservations, lost ${lost.length}, doubled ${doubled.length}`,
      ].join('\n')}\n`,
    );
    const broken = limits.filter(l => !l.ok);
    if (broken.length > 0) {
      throw new Error(
        `limits broken:\n  ${broken
          .map(l => `${l.name}: ${l.measured} (limit ${l.limit})`)
          .join('\n  ')}\n${JSON.stringify(
          { byKind, failed, lost, doubled },
          null,
          2,
        )}`,
      );
    }
  } finally {
    await cleanup();
  }
}

main().catch(error => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
