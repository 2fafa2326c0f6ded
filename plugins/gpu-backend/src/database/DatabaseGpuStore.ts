import {
  DatabaseService,
  resolvePackagePath,
} from '@backstage/backend-plugin-api';
import { ConflictError, InputError, NotFoundError } from '@backstage/errors';
import { randomUUID } from 'node:crypto';
import type { ClusterDriftReport } from '@internal/backstage-plugin-gpu-common';
import { Knex } from 'knex';
import {
  Amounts,
  amountsOf,
  checkPolicy,
  checkReservation,
  decide,
  overQuotaReasons,
} from './admission';
import { insertApproval, setApprovalState } from './approvals';
import { queryAuditEvents, writeAuditEvent } from './audit';
import { readClusterDrift, writeClusterDrift } from './drift';
import {
  heldReservation,
  insertReservation,
  lockLedger,
  lockTeam,
  releaseServiceReservations,
  setReservationState,
  withHeld,
} from './ledger';
import { readQuota } from './quota';
import {
  ApprovalRow,
  ReservationRow,
  ServiceRow,
  TeamQuotaRow,
  serviceAuditView,
  toApprovalRecord,
  toJson,
  toReservationRecord,
  toServiceRecord,
} from './rows';
import {
  applyServiceChange,
  isUuid,
  lockService,
  readService,
  setServiceStatus,
} from './services';
import { isRetryableTransactionError, isUniqueViolation } from './transactions';
import {
  ApprovalRecord,
  AuditEventPage,
  CreateServiceInput,
  CreateServiceResult,
  DecideApprovalInput,
  DecideApprovalResult,
  GpuStore,
  ListAuditEventsQuery,
  ListServicesFilter,
  QuotaRecord,
  QuotaSpec,
  ReplaceReservationInput,
  ReplaceReservationResult,
  ReservationRecord,
  SERVICE_STATUSES,
  ServiceListing,
  ServiceRecord,
  ServiceStatus,
  UpdateServiceStatusInput,
} from './types';
import { checkMicros, toGpuUnits } from './units';

const migrationsDir = resolvePackagePath(
  '@internal/backstage-plugin-gpu-backend',
  'migrations',
);

const REQUEST_KEY_INDEX = {
  name: 'services_team_request_key_uniq',
  table: 'services',
  columns: ['team', 'request_key'],
};
const LIVE_NAME_INDEX = {
  name: 'services_live_name_uniq',
  table: 'services',
  columns: ['namespace', 'name'],
};

/** Statuses in which a service runs (or is meant to) and may be changed. */
const CHANGEABLE_STATUSES: ServiceStatus[] = [
  'approved',
  'applying',
  'ready',
  'failed',
];

const MAX_TRANSACTION_ATTEMPTS = 5;

/**
 * {@link GpuStore} on the plugin's database (SQLite or PostgreSQL).
 *
 * Quota decisions serialise per team: on PostgreSQL by locking the team's
 * `team_quotas` row (`SELECT ... FOR UPDATE`) before reading what is held; on SQLite
 * because knex runs one connection and so one transaction at a time. Every path that
 * makes a reservation count (create, change, approve) takes that lock first, then the
 * service row, then touches reservations, so two writers never wait on each other in
 * opposite orders.
 */
export class DatabaseGpuStore implements GpuStore {
  /** Connects to the plugin database and brings its schema up to date. */
  static async create(options: {
    database: DatabaseService;
  }): Promise<DatabaseGpuStore> {
    const { database } = options;
    const client = await database.getClient();
    if (!database.migrations?.skip) {
      await client.migrate.latest({ directory: migrationsDir });
    }
    return new DatabaseGpuStore(client);
  }

  /** Transactions ended so far; a quota snapshot read before the last one ended is stale. */
  private transactionsEnded = 0;
  private readonly quotaSnapshots = new Map<
    string,
    {
      transactionsEnded: number;
      readAt: number;
      quota: Promise<QuotaRecord | undefined>;
    }
  >();

  private constructor(private readonly db: Knex) {}

  async createServiceWithReservation(
    input: CreateServiceInput,
  ): Promise<CreateServiceResult> {
    const amounts = checkReservation(input.reservation);
    checkPolicy(input.policy);
    try {
      return await this.transaction(tx =>
        this.createInTransaction(tx, input, amounts),
      );
    } catch (error) {
      if (
        input.requestKey !== undefined &&
        isUniqueViolation(error, REQUEST_KEY_INDEX)
      ) {
        // A concurrent call with the same key committed first; answer as it did.
        const existing = await this.transaction(tx =>
          this.findByRequestKey(tx, input),
        );
        if (existing) {
          return existing;
        }
      }
      if (isUniqueViolation(error, LIVE_NAME_INDEX)) {
        throw new ConflictError(
          `A service named '${input.name}' already exists in namespace '${input.namespace}'; ` +
            `delete it first or choose another name`,
        );
      }
      throw error;
    }
  }

  async getService(id: string): Promise<ServiceRecord | undefined> {
    if (!isUuid(id)) {
      return undefined;
    }
    const row = await this.db<ServiceRow>('services').where({ id }).first();
    return row ? toServiceRecord(row) : undefined;
  }

  async listServices(
    filter: ListServicesFilter = {},
  ): Promise<ServiceRecord[]> {
    const rows = await this.servicesQuery(filter).orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'asc' },
    ]);
    return rows.map(toServiceRecord);
  }

  async listServicesWithReservations(
    filter: ListServicesFilter = {},
  ): Promise<ServiceListing[]> {
    const services = await this.listServices(filter);
    if (services.length === 0) {
      return [];
    }
    // The filter again as a subquery: no bound parameter per service, whatever the list's length.
    const ids = this.servicesQuery(filter).select('id');
    const [reservationRows, approvalRows] = await Promise.all([
      this.db<ReservationRow>('reservations')
        .whereIn('service_id', ids)
        .orderBy([
          { column: 'created_at', order: 'desc' },
          { column: 'id', order: 'asc' },
        ]),
      this.db<ApprovalRow>('approvals')
        .whereIn('service_id', ids)
        .orderBy([
          { column: 'requested_at', order: 'asc' },
          { column: 'id', order: 'asc' },
        ]),
    ]);
    const listings = new Map<string, ServiceListing>(
      services.map(service => [
        service.id,
        { service, reservations: [], approvals: [] },
      ]),
    );
    // A service created between the queries is not listed; its rows are skipped.
    for (const row of reservationRows) {
      listings.get(row.service_id)?.reservations.push(toReservationRecord(row));
    }
    for (const row of approvalRows) {
      listings.get(row.service_id)?.approvals.push(toApprovalRecord(row));
    }
    return [...listings.values()];
  }

  private servicesQuery(filter: ListServicesFilter) {
    const query = this.db<ServiceRow>('services');
    if (filter.team !== undefined) {
      query.whereIn('team', asArray(filter.team));
    }
    if (filter.status !== undefined) {
      query.whereIn('status', asArray(filter.status));
    }
    if (filter.namespace !== undefined) {
      query.where('namespace', filter.namespace);
    }
    if (filter.entityRef !== undefined) {
      query.where('entity_ref', filter.entityRef);
    }
    return query;
  }

  async updateServiceStatus(
    input: UpdateServiceStatusInput,
  ): Promise<ServiceRecord> {
    checkStatus(input.status);
    return this.transaction(async tx => {
      const before = await lockService(tx, input.id);
      if (
        input.expectedStatus &&
        !input.expectedStatus.includes(before.status)
      ) {
        throw new ConflictError(
          `Service '${before.name}' is ${before.status}; ` +
            `this change needs it to be ${input.expectedStatus.join(' or ')}`,
        );
      }
      const now = new Date();
      await tx<ServiceRow>('services')
        .where({ id: input.id })
        .update({
          status: input.status,
          status_reason: input.statusReason ?? null,
          ...(input.manifests !== undefined && {
            manifests: toJson(input.manifests),
          }),
          updated_by: input.actor,
          updated_at: now,
        });
      const after = await readService(tx, input.id);
      await writeAuditEvent(tx, {
        actor: input.actor,
        action: 'service.status',
        subjectType: 'service',
        subjectId: after.id,
        team: after.team,
        before: serviceAuditView(before),
        after: serviceAuditView(after),
      });
      if (input.releaseReservation) {
        await releaseServiceReservations(tx, after, input.actor, now);
      }
      return after;
    });
  }

  async releaseReservation(input: {
    serviceId: string;
    actor: string;
  }): Promise<ReservationRecord | undefined> {
    return this.transaction(async tx => {
      const service = await lockService(tx, input.serviceId);
      const released = await releaseServiceReservations(
        tx,
        service,
        input.actor,
        new Date(),
      );
      return released[0];
    });
  }

  async replaceReservation(
    input: ReplaceReservationInput,
  ): Promise<ReplaceReservationResult> {
    const amounts = checkReservation(input.reservation);
    checkPolicy(input.policy);
    return this.transaction(async tx => {
      const team = (await readService(tx, input.serviceId)).team;
      const ledger = await lockLedger(tx, team, input.change.pool);
      const before = await lockService(tx, input.serviceId);
      if (!CHANGEABLE_STATUSES.includes(before.status)) {
        throw new ConflictError(
          `Service '${before.name}' is ${before.status}; it can be changed when it is ` +
            `${CHANGEABLE_STATUSES.join(', ')}`,
        );
      }
      const waiting = await tx<ApprovalRow>('approvals')
        .where({ service_id: before.id, state: 'pending' })
        .first();
      if (waiting) {
        throw new ConflictError(
          `Service '${before.name}' already has a change waiting for approval ${waiting.id}; ` +
            `decide it first`,
        );
      }
      const current = await heldReservation(tx, before.id);
      const snapshot = await withHeld(tx, ledger, current?.id);
      const decision = decide(
        input.policy,
        overQuotaReasons(snapshot, amounts),
      );
      const now = new Date();

      if (decision.pending) {
        const reservation = await insertReservation(tx, {
          service: before,
          pool: input.change.pool,
          amounts,
          state: 'pending',
          now,
          actor: input.actor,
        });
        const approval = await insertApproval(tx, {
          service: before,
          reservation,
          kind: 'change',
          reasons: decision.reasons,
          proposal: input.change,
          now,
          actor: input.actor,
        });
        return {
          outcome: 'pending-approval',
          service: before,
          reservation,
          approval,
        };
      }

      if (current) {
        await setReservationState(tx, current, 'released', input.actor, now);
      }
      const reservation = await insertReservation(tx, {
        service: before,
        pool: input.change.pool,
        amounts,
        state: 'held',
        now,
        actor: input.actor,
      });
      const service = await applyServiceChange(
        tx,
        before,
        input.change,
        input.actor,
        now,
      );
      return { outcome: 'replaced', service, reservation };
    });
  }

  async listReservations(serviceId: string): Promise<ReservationRecord[]> {
    if (!isUuid(serviceId)) {
      return [];
    }
    const rows = await this.db<ReservationRow>('reservations')
      .where({ service_id: serviceId })
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'asc' },
      ]);
    return rows.map(toReservationRecord);
  }

  async getQuota(team: string): Promise<QuotaRecord | undefined> {
    return readQuota(this.db, team);
  }

  async getQuotaSnapshot(
    team: string,
    maxAgeMs: number,
  ): Promise<QuotaRecord | undefined> {
    const now = Date.now();
    const cached = this.quotaSnapshots.get(team);
    if (
      cached &&
      cached.transactionsEnded === this.transactionsEnded &&
      now - cached.readAt <= maxAgeMs
    ) {
      return cached.quota;
    }
    const snapshot = {
      transactionsEnded: this.transactionsEnded,
      readAt: now,
      quota: readQuota(this.db, team),
    };
    this.quotaSnapshots.set(team, snapshot);
    snapshot.quota.catch(() => {
      if (this.quotaSnapshots.get(team) === snapshot) {
        this.quotaSnapshots.delete(team);
      }
    });
    return snapshot.quota;
  }

  async listQuotas(): Promise<QuotaRecord[]> {
    const teams = await this.db<TeamQuotaRow>('team_quotas')
      .select('team')
      .orderBy('team');
    const quotas = await Promise.all(
      teams.map(({ team }) => readQuota(this.db, team)),
    );
    return quotas.filter((q): q is QuotaRecord => q !== undefined);
  }

  async putQuota(input: {
    team: string;
    quota: QuotaSpec;
    actor: string;
  }): Promise<QuotaRecord> {
    const { team, quota, actor } = input;
    if (!team) {
      throw new InputError('team must be a non-empty team name');
    }
    const budget = checkMicros(
      quota.monthlyBudgetMicros,
      'monthlyBudgetMicros',
    );
    const pools = Object.entries(quota.pools ?? {}).map(([pool, amount]) => ({
      team,
      pool,
      nominal_gpu_units: toGpuUnits(amount, `quota of pool '${pool}'`),
    }));
    return this.transaction(async tx => {
      await lockTeam(tx, team);
      const before = await readQuota(tx, team);
      const now = new Date();
      await tx('team_quotas')
        .insert({
          team,
          monthly_budget_micros: budget,
          updated_by: actor,
          updated_at: now,
        })
        .onConflict('team')
        .merge();
      await tx('pool_quotas').where({ team }).delete();
      if (pools.length > 0) {
        await tx('pool_quotas').insert(pools);
      }
      const after = (await readQuota(tx, team))!;
      await writeAuditEvent(tx, {
        actor,
        action: 'quota.put',
        subjectType: 'quota',
        subjectId: team,
        team,
        before,
        after,
      });
      return after;
    });
  }

  async listApprovals(
    filter: { state?: string; team?: string; serviceId?: string } = {},
  ): Promise<ApprovalRecord[]> {
    const query = this.db<ApprovalRow>('approvals');
    if (filter.state !== undefined) {
      query.where('state', filter.state);
    }
    if (filter.team !== undefined) {
      query.where('team', filter.team);
    }
    if (filter.serviceId !== undefined) {
      if (!isUuid(filter.serviceId)) {
        return [];
      }
      query.where('service_id', filter.serviceId);
    }
    const rows = await query.orderBy([
      { column: 'requested_at', order: 'asc' },
      { column: 'id', order: 'asc' },
    ]);
    return rows.map(toApprovalRecord);
  }

  async getApproval(id: string): Promise<ApprovalRecord | undefined> {
    if (!isUuid(id)) {
      return undefined;
    }
    const row = await this.db<ApprovalRow>('approvals').where({ id }).first();
    return row ? toApprovalRecord(row) : undefined;
  }

  async decideApproval(
    input: DecideApprovalInput,
  ): Promise<DecideApprovalResult> {
    if (input.decision !== 'approve' && input.decision !== 'reject') {
      throw new InputError(
        `decision must be 'approve' or 'reject'; got '${input.decision}'`,
      );
    }
    return this.transaction(async tx => {
      const found = isUuid(input.id)
        ? await tx<ApprovalRow>('approvals').where({ id: input.id }).first()
        : undefined;
      if (!found) {
        throw new NotFoundError(`No approval with id '${input.id}'`);
      }
      const reservationRow = await tx<ReservationRow>('reservations')
        .where({ id: found.reservation_id })
        .first();
      const ledger = await lockLedger(tx, found.team, reservationRow!.pool);
      const service = await lockService(tx, found.service_id);
      const approval = toApprovalRecord(
        (await tx<ApprovalRow>('approvals').where({ id: input.id }).first())!,
      );
      if (approval.state !== 'pending') {
        throw new ConflictError(
          `Approval ${approval.id} is already ${approval.state}; only pending approvals can be decided`,
        );
      }
      const reservation = toReservationRecord(
        (await tx<ReservationRow>('reservations')
          .where({ id: approval.reservationId })
          .first())!,
      );
      const now = new Date();

      if (input.decision === 'reject') {
        const released = await setReservationState(
          tx,
          reservation,
          'released',
          input.actor,
          now,
        );
        const decided = await setApprovalState(
          tx,
          approval,
          'rejected',
          input.actor,
          now,
          input.comment,
        );
        let after = service;
        if (approval.kind === 'create') {
          after = await setServiceStatus(tx, service, {
            status: 'rejected',
            statusReason: `Rejected by ${input.actor}${
              input.comment ? `: ${input.comment}` : ''
            }`,
            actor: input.actor,
            now,
          });
        }
        return { approval: decided, service: after, reservation: released };
      }

      const current =
        approval.kind === 'change'
          ? await heldReservation(tx, service.id)
          : undefined;
      const snapshot = await withHeld(tx, ledger, current?.id);
      const reasons = overQuotaReasons(snapshot, amountsOf(reservation));
      if (reasons.length > 0 && !input.allowOverQuota) {
        throw new ConflictError(
          `Approving would over-allocate: ${reasons
            .map(r => r.message)
            .join('; ')}. Approve with allowOverQuota to grant it anyway`,
        );
      }
      if (current) {
        await setReservationState(tx, current, 'released', input.actor, now);
      }
      const held = await setReservationState(
        tx,
        reservation,
        'held',
        input.actor,
        now,
      );
      const decided = await setApprovalState(
        tx,
        approval,
        'approved',
        input.actor,
        now,
        input.comment,
      );
      const after =
        approval.kind === 'change'
          ? await applyServiceChange(
              tx,
              service,
              approval.proposal!,
              input.actor,
              now,
            )
          : await setServiceStatus(tx, service, {
              status: 'approved',
              statusReason: `Approved by ${input.actor}${
                input.comment ? `: ${input.comment}` : ''
              }`,
              actor: input.actor,
              now,
            });
      return { approval: decided, service: after, reservation: held };
    });
  }

  async listAuditEvents(
    query: ListAuditEventsQuery = {},
  ): Promise<AuditEventPage> {
    return queryAuditEvents(this.db, query);
  }

  async putClusterDrift(report: ClusterDriftReport): Promise<void> {
    await writeClusterDrift(this.db, report);
  }

  async listClusterDrift(): Promise<ClusterDriftReport[]> {
    return readClusterDrift(this.db);
  }

  private async createInTransaction(
    tx: Knex.Transaction,
    input: CreateServiceInput,
    amounts: Amounts,
  ): Promise<CreateServiceResult> {
    const ledger = await lockLedger(tx, input.team, input.pool);
    const existing = await this.findByRequestKey(tx, input);
    if (existing) {
      return existing;
    }
    const snapshot = await withHeld(tx, ledger);
    const decision = decide(input.policy, overQuotaReasons(snapshot, amounts));
    const now = new Date();
    const id = randomUUID();
    await tx<ServiceRow>('services').insert({
      id,
      name: input.name,
      team: input.team,
      namespace: input.namespace,
      entity_ref: input.entityRef ?? null,
      environment: input.environment,
      tier: input.tier,
      pool: input.pool,
      status: decision.pending ? 'pending-approval' : 'approved',
      status_reason: decision.pending
        ? decision.reasons.map(r => r.message).join('; ')
        : null,
      request: JSON.stringify(input.request),
      placement: JSON.stringify(input.placement),
      quote: toJson(input.quote),
      manifests: toJson(input.manifests),
      cluster: input.cluster ?? null,
      mode: input.mode,
      request_key: input.requestKey ?? null,
      created_by: input.actor,
      created_at: now,
      updated_by: input.actor,
      updated_at: now,
    });
    const service = await readService(tx, id);
    await writeAuditEvent(tx, {
      actor: input.actor,
      action: 'service.create',
      subjectType: 'service',
      subjectId: id,
      team: input.team,
      after: serviceAuditView(service),
    });
    const reservation = await insertReservation(tx, {
      service,
      pool: input.pool,
      amounts,
      state: decision.pending ? 'pending' : 'held',
      now,
      actor: input.actor,
    });
    const approval = decision.pending
      ? await insertApproval(tx, {
          service,
          reservation,
          kind: 'create',
          reasons: decision.reasons,
          now,
          actor: input.actor,
        })
      : undefined;
    return { created: true, service, reservation, approval };
  }

  private async findByRequestKey(
    tx: Knex.Transaction,
    input: CreateServiceInput,
  ): Promise<CreateServiceResult | undefined> {
    if (input.requestKey === undefined) {
      return undefined;
    }
    const row = await tx<ServiceRow>('services')
      .where({ team: input.team, request_key: input.requestKey })
      .first();
    if (!row) {
      return undefined;
    }
    const service = toServiceRecord(row);
    if (
      service.name !== input.name ||
      service.namespace !== input.namespace ||
      canonicalJson(service.request) !== canonicalJson(input.request)
    ) {
      throw new ConflictError(
        `Request key '${input.requestKey}' was already used by team '${input.team}' ` +
          `for a different request (service '${service.name}'); use a new key for a new request`,
      );
    }
    const reservations = (
      await tx<ReservationRow>('reservations')
        .where({ service_id: service.id })
        .orderBy([
          { column: 'created_at', order: 'desc' },
          { column: 'id', order: 'asc' },
        ])
    ).map(toReservationRecord);
    const approvalRow = await tx<ApprovalRow>('approvals')
      .where({ service_id: service.id, kind: 'create' })
      .first();
    return {
      created: false,
      service,
      reservation:
        reservations.find(r => r.state === 'held') ?? reservations[0],
      approval: approvalRow ? toApprovalRecord(approvalRow) : undefined,
    };
  }

  /** Runs `fn` in a transaction, again when PostgreSQL aborted it for a retryable reason. */
  private async transaction<T>(
    fn: (tx: Knex.Transaction) => Promise<T>,
  ): Promise<T> {
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          return await this.db.transaction(fn);
        } catch (error) {
          if (
            attempt >= MAX_TRANSACTION_ATTEMPTS ||
            !isRetryableTransactionError(error)
          ) {
            throw error;
          }
        }
      }
    } finally {
      this.transactionsEnded += 1;
    }
  }
}

function checkStatus(status: ServiceStatus): void {
  if (!SERVICE_STATUSES.includes(status)) {
    throw new InputError(
      `status must be one of ${SERVICE_STATUSES.join(', ')}; got '${status}'`,
    );
  }
}

function asArray<T>(value: T | T[]): T[] {
  return Array.isArray(value) ? value : [value];
}

/** JSON with object keys sorted, to compare requests regardless of key order. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v).sort(([a], [b]) => a.localeCompare(b)),
        )
      : v,
  );
}
