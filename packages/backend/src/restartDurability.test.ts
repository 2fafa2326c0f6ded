/*
 * The real backend (src/index.ts, every plugin) on SQLite files in a data directory, as app-config.yaml's default
 * stores them: what it was told through the HTTP API outlives a restart (services, reservations, approvals, audit,
 * quota use), and a backend killed with SIGKILL in the middle of a burst of concurrent writes leaves a consistent
 * ledger behind, read through the API of the next backend on the same directory and straight from its SQLite file.
 *
 * The requester is a static external-access token (a service principal, like the backend-restart cluster suite's);
 * the approver the guest user (boot.test.ts's sign-in), since only a user decides and never on their own request.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  GpuApi,
  gpuApi,
  ledgerViolations,
  openGpuFile,
  readGpuFile,
  readThroughApi,
  signInAsGuest,
} from './__testUtils__/gpuLedger';
import {
  BackendProcess,
  freePort,
  startBackendProcess,
} from './__testUtils__/startBackendProcess';

jest.setTimeout(480_000);

const TEAMS = ['ml-platform', 'search'];

/** A small vLLM service pinned to a tier and pool of the demo platform. */
function serviceRequest(
  name: string,
  options: { team?: string; pool?: string; replicas?: number } = {},
) {
  return {
    name,
    team: options.team ?? 'ml-platform',
    model: 'llama-3.1-8b',
    runtime: 'vllm',
    dtype: 'bf16',
    maxModelLen: 8192,
    concurrency: 64,
    replicas: options.replicas ?? 1,
    environment: 'dev',
    tier: 'dedicated',
    pool: options.pool ?? 'l4-ondemand',
  };
}

describe('a backend restarted on the same data directory', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'gpu-durability-'));
  const requesterToken = randomBytes(24).toString('base64url');
  let backend: BackendProcess | undefined;
  let guestToken = '';
  let starts = 0;

  const requester = gpuApi(() => backend!.baseUrl, requesterToken);
  const approver = gpuApi(
    () => backend!.baseUrl,
    () => guestToken,
  );

  /**
   * Starts a backend whose database is SQLite files in `dataDir`, as app-config.yaml's `connection.directory`, after
   * stopping the one before (if it still runs).
   */
  async function start(dataDir: string): Promise<BackendProcess> {
    await backend?.stop();
    starts += 1;
    backend = await startBackendProcess({
      port: await freePort(),
      configFile: path.join(dir, `config-${starts}.json`),
      config: {
        backend: {
          database: {
            client: 'better-sqlite3',
            connection: { directory: dataDir },
          },
          auth: {
            externalAccess: [
              {
                type: 'static',
                options: {
                  token: requesterToken,
                  subject: 'durability-requester',
                },
              },
            ],
          },
        },
      },
    });
    guestToken = await signInAsGuest(backend.baseUrl);
    return backend;
  }

  /** Without what is computed at each read: the live preview (`overage`: month-to-date spend) of pending approvals. */
  const withoutLive = <T>(state: T): T =>
    JSON.parse(
      JSON.stringify(state, (_key, value) =>
        value?.state === 'pending' && value.overage
          ? { ...value, overage: undefined }
          : value,
      ),
    );

  const sleep = (ms: number) =>
    new Promise<false>(resolve => setTimeout(() => resolve(false), ms));

  const post = (api: GpuApi, route: string, body: unknown) =>
    api.json(route, { method: 'POST', body: JSON.stringify(body) });

  afterAll(async () => {
    await backend?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps services, reservations, approvals, audit and quota use across a restart', async () => {
    const dataDir = path.join(dir, 'kept');
    await start(dataDir);
    expect(existsSync(path.join(dataDir, 'gpu.sqlite'))).toBe(true);

    // ml-platform gets two L4s (the pool has four): three replicas wait for approval, and an approver may grant them.
    await requester.json('/teams/ml-platform/quota', {
      method: 'PUT',
      body: JSON.stringify({
        pools: { 'l4-ondemand': 2, h100: 8 },
        monthlyBudget: '60000',
      }),
    });
    const admitted = await post(requester, '/services', {
      request: serviceRequest('kept-admitted'),
      requestKey: 'kept-admitted',
    });
    expect(admitted.status).toBe('approved');
    const granted = await post(requester, '/services', {
      request: serviceRequest('kept-granted', { replicas: 3 }),
    });
    expect(granted.status).toBe('pending-approval');
    const decision = await post(
      approver,
      `/approvals/${granted.approval.id}/approve`,
      { comment: 'launch week', allowOverQuota: true },
    );
    expect(decision.service.status).toBe('approved');
    const waiting = await post(requester, '/services', {
      request: serviceRequest('kept-waiting'),
    });
    expect(waiting.status).toBe('pending-approval');
    const changed = await post(requester, '/services', {
      request: serviceRequest('kept-changed', { pool: 'h100' }),
    });
    await requester.json(`/services/${changed.id}`, {
      method: 'PATCH',
      body: JSON.stringify({ replicas: 2 }),
    });
    const deleted = await post(requester, '/services', {
      request: serviceRequest('kept-deleted', { pool: 'h100' }),
    });
    await requester.json(`/services/${deleted.id}`, { method: 'DELETE' });
    await post(requester, '/services', {
      // On spot: ml-platform holds all four on-demand L4s, so another team's request there waits for the pool.
      request: serviceRequest('kept-search', {
        team: 'search',
        pool: 'spot-l4',
      }),
    });

    const before = withoutLive(await readThroughApi(requester, TEAMS));
    expect(before.services.map(s => `${s.name}:${s.status}`).sort()).toEqual([
      'kept-admitted:approved',
      'kept-changed:approved',
      'kept-deleted:deleted',
      'kept-granted:approved',
      'kept-search:approved',
      'kept-waiting:pending-approval',
    ]);
    expect(before.quotas[0].reservedGpuEquivalents).toMatchObject({
      'l4-ondemand': 4,
      h100: 2,
    });
    expect(ledgerViolations(readGpuFile(dataDir), before.quotas)).toEqual([]);
    // Nothing runs in a dry run: its held reservation is reserved, not spend. Held time is counted in whole seconds
    // up to the window's end (the current second), so ask until at least one second of it has passed.
    let costBefore = await requester.json(
      `/services/${admitted.id}/cost?window=1h`,
    );
    for (let i = 0; i < 20 && !(costBefore.reservedMicros > 0); i++) {
      await new Promise(resolve => setTimeout(resolve, 250));
      costBefore = await requester.json(
        `/services/${admitted.id}/cost?window=1h`,
      );
    }
    expect(costBefore).toMatchObject({
      accrualBasis: 'dry-run',
      allocationMicros: 0,
      projectedMonthMicros: 0,
    });
    expect(costBefore.reservedMicros).toBeGreaterThan(0);

    const tokenBefore = guestToken;
    await backend!.stop();
    await start(dataDir);

    // The guest's sign-in outlives the restart too (the auth backend's signing keys are in its database).
    const signedIn = await gpuApi(() => backend!.baseUrl, tokenBefore).fetch(
      '/services?limit=1',
    );
    expect(signedIn.status).toBe(200);

    // Everything the API answered before, it answers again: nothing forgotten, nothing changed by the restart.
    const after = withoutLive(await readThroughApi(requester, TEAMS));
    expect(after.services).toEqual(before.services);
    expect(after.approvals).toEqual(before.approvals);
    expect(after.audit).toEqual(before.audit);
    expect(after.quotas).toEqual(before.quotas);
    expect(ledgerViolations(readGpuFile(dataDir), after.quotas)).toEqual([]);
    // Still reserved after the restart, and more of it: the reservation has been held longer.
    const costAfter = await requester.json(
      `/services/${admitted.id}/cost?window=1h`,
    );
    expect(costAfter).toMatchObject({
      accrualBasis: 'dry-run',
      allocationMicros: 0,
      monthlyAllocationMicros: costBefore.monthlyAllocationMicros,
    });
    expect(costAfter.reservedMicros).toBeGreaterThanOrEqual(
      costBefore.reservedMicros,
    );

    // And it goes on from there: the request key is remembered, quota is counted, approvals are decided.
    const again = await requester.fetch('/services', {
      method: 'POST',
      body: JSON.stringify({
        request: serviceRequest('kept-admitted'),
        requestKey: 'kept-admitted',
      }),
    });
    expect(again.status).toBe(200);
    expect((await again.json()).id).toBe(admitted.id);
    const rejected = await post(
      approver,
      `/approvals/${waiting.approval.id}/reject`,
      { comment: 'no room' },
    );
    expect(rejected.service.status).toBe('rejected');
    const [latest] = (await requester.json('/audit?limit=1')).items;
    expect(Number(latest.id)).toBeGreaterThan(
      Math.max(...before.audit.map(e => Number(e.id))),
    );
  });

  it('leaves a consistent ledger when it is killed (SIGKILL) during a burst of concurrent writes', async () => {
    const dataDir = path.join(dir, 'killed');
    await start(dataDir);
    const acknowledged = new Set<string>();
    const deletedIds = new Set<string>();

    // Rounds until two bursts were cut short by the kill (a burst can complete before the signal lands).
    let interrupted = 0;
    for (let round = 0; round < 6 && interrupted < 2; round++) {
      // Each round starts with the quota free again, so that most of the burst is admitted (and rendered) at once.
      for (const service of await requester.all('/services')) {
        if (!['deleted', 'rejected'].includes(service.status)) {
          await requester.json(`/services/${service.id}`, { method: 'DELETE' });
        }
      }
      // Services to change and delete during the burst.
      const base = [];
      for (let i = 0; i < 4; i++) {
        base.push(
          await post(requester, '/services', {
            request: serviceRequest(`base-${round}-${i}`, { pool: 'h100' }),
            requestKey: `base-${round}-${i}`,
          }),
        );
      }
      base.forEach(service => acknowledged.add(service.id));

      // The burst: creates that fit (the rest of ml-platform's H100s and its L4s, search's spot L4s), more that wait
      // for approval (over quota), changes and deletes, all at once.
      const pools = [
        ...Array(4).fill(['ml-platform', 'h100']),
        ...Array(4).fill(['ml-platform', 'l4-ondemand']),
        ...Array(6).fill(['search', 'spot-l4']),
        ...Array(20).fill(['ml-platform', 'h100']),
        ...Array(20).fill(['search', 'l4-ondemand']),
      ];
      const creates = pools.map(([team, pool], i) => ({
        request: serviceRequest(`burst-${round}-${i}`, { team, pool }),
        requestKey: `burst-${round}-${i}`,
      }));
      let answered = 0;
      const settle = (promise: Promise<Response>, onOk: (body: any) => void) =>
        promise
          .then(async res => {
            answered += 1;
            if (res.ok) onOk(await res.json());
          })
          .catch(() => undefined);
      const burst = [
        ...creates.map(body =>
          settle(
            requester.fetch('/services', {
              method: 'POST',
              body: JSON.stringify(body),
            }),
            service => acknowledged.add(service.id),
          ),
        ),
        ...base.slice(0, 2).map(service =>
          settle(
            requester.fetch(`/services/${service.id}`, {
              method: 'PATCH',
              body: JSON.stringify({ replicas: 2 }),
            }),
            () => undefined,
          ),
        ),
        ...base
          .slice(2)
          .map(service =>
            settle(
              requester.fetch(`/services/${service.id}`, { method: 'DELETE' }),
              () => deletedIds.add(service.id),
            ),
          ),
      ];
      // Killed (SIGKILL to its process group) as soon as a few of the burst's services are stored, watching its
      // SQLite file: the creates after them have committed or not, their answers are in flight.
      const done = Promise.all(burst).then(() => true);
      const watch = openGpuFile(dataDir);
      try {
        for (;;) {
          if (watch.count(`burst-${round}-%`) >= 3) break;
          if (await Promise.race([done, sleep(1)])) break;
        }
      } finally {
        watch.close();
      }
      await backend!.kill();
      await done;

      await start(dataDir);
      const state = await readThroughApi(requester, TEAMS);
      expect(ledgerViolations(readGpuFile(dataDir), state.quotas)).toEqual([]);
      // Every write the killed backend answered is there.
      const stored = new Map(state.services.map(s => [s.id, s]));
      expect([...acknowledged].filter(id => !stored.has(id))).toEqual([]);
      expect(
        [...deletedIds].filter(id => stored.get(id)?.status !== 'deleted'),
      ).toEqual([]);
      const burstNames = (services: Array<{ name: string }>) =>
        services
          .map(s => s.name)
          .filter(name => name.startsWith(`burst-${round}-`))
          .sort();
      if (
        answered < burst.length ||
        burstNames(state.services).length < creates.length
      ) {
        interrupted += 1;
      }

      // A client that repeats its creates after the crash gets the service it asked for, exactly once.
      for (const body of creates) {
        const res = await requester.fetch('/services', {
          method: 'POST',
          body: JSON.stringify(body),
        });
        expect([200, 201]).toContain(res.status);
      }
      const repeated = await readThroughApi(requester, TEAMS);
      expect(burstNames(repeated.services)).toEqual(
        creates.map(c => c.request.name).sort(),
      );
      expect(ledgerViolations(readGpuFile(dataDir), repeated.quotas)).toEqual(
        [],
      );
    }
    expect(interrupted).toBeGreaterThanOrEqual(1);
  });
});
