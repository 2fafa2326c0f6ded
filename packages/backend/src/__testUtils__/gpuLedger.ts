/**
 * Reading a real backend's GPU state for the restart tests: through the HTTP API (every page), and straight from the
 * gpu plugin's SQLite file; plus the consistency checks of that state.
 */
import path from 'node:path';

/** A signed-in caller of `/api/gpu` (a static external-access token, or a user's token). */
export interface GpuApi {
  fetch(route: string, init?: RequestInit): Promise<Response>;
  /** The JSON body of a 2xx answer; throws with the status and body otherwise. */
  json<T = any>(route: string, init?: RequestInit): Promise<T>;
  /** Every item of a paged list (`items`, `nextCursor`). */
  all<T = any>(route: string): Promise<T[]>;
}

export function gpuApi(
  baseUrl: () => string,
  token: string | (() => string),
): GpuApi {
  const call = (route: string, init: RequestInit = {}) =>
    fetch(`${baseUrl()}/api/gpu${route}`, {
      ...init,
      headers: {
        authorization: `Bearer ${typeof token === 'string' ? token : token()}`,
        'content-type': 'application/json',
      },
    });
  const json = async (route: string, init?: RequestInit) => {
    const res = await call(route, init);
    const text = await res.text();
    if (!res.ok) {
      throw new Error(
        `${init?.method ?? 'GET'} ${route} answered ${res.status}: ${text}`,
      );
    }
    return JSON.parse(text);
  };
  return {
    fetch: call,
    json,
    async all(route) {
      const items = [];
      let cursor: string | undefined;
      do {
        const separator = route.includes('?') ? '&' : '?';
        const page = await json(
          `${route}${separator}limit=200${
            cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''
          }`,
        );
        items.push(...page.items);
        cursor = page.nextCursor;
      } while (cursor);
      return items;
    },
  };
}

/** The Backstage token of the guest user (`auth.providers.guest`: user:default/guest, of the platform team). */
export async function signInAsGuest(baseUrl: string): Promise<string> {
  const res = await fetch(`${baseUrl}/api/auth/guest/refresh?env=development`, {
    headers: { 'x-requested-with': 'XMLHttpRequest' },
  });
  if (!res.ok) {
    throw new Error(
      `guest sign-in answered ${res.status}: ${await res.text()}`,
    );
  }
  return (await res.json()).backstageIdentity.token;
}

/** Everything the API says about the GPU services, approvals, audit and quota of some teams. */
export async function readThroughApi(api: GpuApi, teams: string[]) {
  const services = await api.all('/services');
  const details = await Promise.all(
    services.map(s => api.json(`/services/${s.id}`)),
  );
  const audit = [];
  let cursor: string | undefined;
  do {
    const page = await api.json(
      `/audit?limit=500${
        cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''
      }`,
    );
    audit.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  const quotas = await Promise.all(
    teams.map(team => api.json(`/teams/${team}/quota`)),
  );
  return {
    services: sortById(details),
    approvals: sortById(await api.all('/approvals')),
    audit,
    quotas,
  };
}

function sortById<T extends { id: string }>(items: T[]): T[] {
  return [...items].sort((a, b) => a.id.localeCompare(b.id));
}

/** The gpu plugin's tables, as stored in its SQLite file in the data directory. */
export interface GpuTables {
  services: Array<Record<string, any>>;
  reservations: Array<Record<string, any>>;
  approvals: Array<Record<string, any>>;
  audit: Array<Record<string, any>>;
}

function openReadOnly(dataDir: string) {
  // better-sqlite3 (a dependency of this package) has no bundled types.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Database = require('better-sqlite3');
  return new Database(path.join(dataDir, 'gpu.sqlite'), {
    readonly: true,
    fileMustExist: true,
  });
}

/** A read-only connection to `<dataDir>/gpu.sqlite` that counts the stored services named like a pattern. */
export function openGpuFile(dataDir: string): {
  count(namePattern: string): number;
  close(): void;
} {
  const db = openReadOnly(dataDir);
  const query = db.prepare(
    'SELECT COUNT(*) AS n FROM services WHERE name LIKE ?',
  );
  return {
    count: namePattern => query.get(namePattern).n,
    close: () => db.close(),
  };
}

/** Reads the gpu plugin's tables from `<dataDir>/gpu.sqlite` (read-only; the backend may be running). */
export function readGpuFile(dataDir: string): GpuTables {
  const db = openReadOnly(dataDir);
  try {
    const all = (sql: string) => db.prepare(sql).all();
    return {
      services: all('SELECT * FROM services'),
      reservations: all('SELECT * FROM reservations'),
      approvals: all('SELECT * FROM approvals'),
      audit: all('SELECT * FROM audit_events ORDER BY id'),
    };
  } finally {
    db.close();
  }
}

/** The audit action that put a reservation in its state. */
const RESERVATION_AUDIT: Record<string, string> = {
  pending: 'reservation.request',
  held: 'reservation.hold',
  released: 'reservation.release',
};
const LIVE = ['approved', 'applying', 'starting', 'ready', 'failed'];
const TRANSITIONAL = ['applying', 'deleting'];
const GPU_UNITS = 5040;

/**
 * What must hold of a stored ledger, whatever was interrupted: returns every violation (none when consistent).
 *
 * - every service has its creation audit event and its reservations; a live one holds exactly one reservation (in
 *   its pool) and has the manifests of its spec, a waiting one exactly one pending reservation and approval, a
 *   deleted or rejected one none held or pending;
 * - every reservation and approval belongs to a stored service of its team, and has its audit events;
 * - no service is left in a status that nothing moves on (`applying`, `deleting` in dry-run);
 * - each team's quota use (`GET /teams/:team/quota`) is the sum of its held reservations.
 */
export function ledgerViolations(
  tables: GpuTables,
  quotas: Array<{
    team: string;
    reservedGpuEquivalents: Record<string, number>;
    reservedMonthlyCostMicros: number;
  }>,
): string[] {
  const problems: string[] = [];
  const services = new Map(tables.services.map(s => [s.id, s]));
  const audited = new Set(tables.audit.map(e => `${e.action} ${e.subject_id}`));
  for (const service of tables.services) {
    const of = `service ${service.name} (${service.id}, ${service.status})`;
    const reservations = tables.reservations.filter(
      r => r.service_id === service.id,
    );
    const held = reservations.filter(r => r.state === 'held');
    const pending = reservations.filter(r => r.state === 'pending');
    const approvals = tables.approvals.filter(
      a => a.service_id === service.id && a.state === 'pending',
    );
    if (!audited.has(`service.create ${service.id}`)) {
      problems.push(`${of} has no service.create audit event`);
    }
    if (reservations.length === 0) {
      problems.push(`${of} has no reservation`);
    }
    if (TRANSITIONAL.includes(service.status)) {
      problems.push(
        `${of} is left ${service.status} (dry-run: nothing moves it on)`,
      );
    }
    if (LIVE.includes(service.status)) {
      if (held.length !== 1 || held[0].pool !== service.pool) {
        problems.push(
          `${of} holds ${held.length} reservations (${held
            .map(r => r.pool)
            .join(', ')}), not one in ${service.pool}`,
        );
      }
      // A live service may wait for a change's approval: one pending reservation with its pending approval.
      if (pending.length !== approvals.length || pending.length > 1) {
        problems.push(
          `${of} has ${pending.length} pending reservations and ${approvals.length} pending approvals`,
        );
      }
      problems.push(...manifestProblems(service, of));
    } else if (service.status === 'pending-approval') {
      if (held.length !== 0 || pending.length !== 1 || approvals.length !== 1) {
        problems.push(
          `${of} waits with ${held.length} held and ${pending.length} pending reservations, ${approvals.length} pending approvals`,
        );
      }
    } else if (held.length + pending.length + approvals.length > 0) {
      problems.push(
        `${of} still has ${held.length} held, ${pending.length} pending reservations and ${approvals.length} pending approvals`,
      );
    }
  }
  for (const reservation of tables.reservations) {
    const service = services.get(reservation.service_id);
    if (!service || service.team !== reservation.team) {
      problems.push(`reservation ${reservation.id} has no service of its team`);
    }
    const action = RESERVATION_AUDIT[reservation.state];
    if (!audited.has(`${action} ${reservation.id}`)) {
      problems.push(
        `reservation ${reservation.id} (${reservation.state}) has no ${action} audit event`,
      );
    }
  }
  for (const approval of tables.approvals) {
    if (
      !services.has(approval.service_id) ||
      !tables.reservations.some(r => r.id === approval.reservation_id)
    ) {
      problems.push(`approval ${approval.id} has no service or reservation`);
    }
  }
  for (const quota of quotas) {
    const held = tables.reservations.filter(
      r => r.team === quota.team && r.state === 'held',
    );
    const units = new Map<string, number>();
    for (const r of held) {
      units.set(r.pool, (units.get(r.pool) ?? 0) + Number(r.gpu_units));
    }
    for (const pool of new Set([
      ...units.keys(),
      ...Object.keys(quota.reservedGpuEquivalents),
    ])) {
      const stored = (units.get(pool) ?? 0) / GPU_UNITS;
      const reported = quota.reservedGpuEquivalents[pool] ?? 0;
      if (Math.abs(stored - reported) > 1e-9) {
        problems.push(
          `team ${quota.team} uses ${reported} GPU-equivalents of ${pool} by its quota, but holds ${stored}`,
        );
      }
    }
    const cost = held.reduce(
      (sum, r) => sum + Number(r.monthly_cost_micros),
      0,
    );
    if (cost !== quota.reservedMonthlyCostMicros) {
      problems.push(
        `team ${quota.team} commits ${quota.reservedMonthlyCostMicros} micro-dollars a month by its quota, but holds ${cost}`,
      );
    }
  }
  return problems;
}

/** A live service's stored manifests must be those of its stored spec: its id, name and replicas. */
function manifestProblems(service: Record<string, any>, of: string): string[] {
  const manifests = service.manifests ? JSON.parse(service.manifests) : [];
  const request = JSON.parse(service.request);
  const deployment = manifests.find(
    (m: { kind: string }) => m.kind === 'Deployment',
  );
  if (!deployment) {
    return [`${of} has no Deployment in its manifests`];
  }
  const problems: string[] = [];
  if (!JSON.stringify(deployment.metadata?.labels ?? {}).includes(service.id)) {
    problems.push(`${of}: its Deployment is not labelled with its id`);
  }
  if (deployment.spec?.replicas !== request.replicas) {
    problems.push(
      `${of}: its Deployment has ${deployment.spec?.replicas} replicas, its spec ${request.replicas}`,
    );
  }
  return problems;
}
