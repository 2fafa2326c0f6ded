import {
  DatabaseService,
  resolvePackagePath,
} from '@backstage/backend-plugin-api';
import { ConflictError, InputError, NotFoundError } from '@backstage/errors';
import { randomUUID } from 'node:crypto';
import { Knex } from 'knex';
import { LedgerSnapshot, overQuotaReasons } from './admission';
import {
  ApprovalRow,
  AuditEventRow,
  PoolQuotaRow,
  ReservationRow,
  ServiceRow,
  TeamQuotaRow,
  serviceAuditView,
  toApprovalRecord,
  toAuditEvent,
  toIso,
  toJson,
  toReservationRecord,
  toServiceRecord,
} from './rows';
import {
  isPostgres,
  isRetryableTransactionError,
  isUniqueViolation,
} from './transactions';
import {
  AdmissionPolicy,
  ApprovalReason,
  ApprovalRecord,
  AuditEventPage,
  AuditSubjectType,
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
  ReservationRequest,
  SERVICE_STATUSES,
  ServiceChange,
  ServiceRecord,
  ServiceStatus,
  UpdateServiceStatusInput,
} from './types';
import { checkMicros, fromGpuUnits, readInteger, toGpuUnits } from './units';

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
const DEFAULT_AUDIT_PAGE = 100;
const MAX_AUDIT_PAGE = 500;

interface AuditInput {
  actor: string;
  action: string;
  subjectType: AuditSubjectType;
  subjectId: string;
  team?: string;
  before?: unknown;
  after?: unknown;
}

/** Amounts of a reservation request, validated and in stored units. */
interface Amounts {
  gpuUnits: number;
  monthlyCostMicros: number;
}

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

  private readonly lockRows: boolean;

  private constructor(private readonly db: Knex) {
    this.lockRows = isPostgres(db);
  }

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
    const rows = await query.orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'asc' },
    ]);
    return rows.map(toServiceRecord);
  }

  async updateServiceStatus(
    input: UpdateServiceStatusInput,
  ): Promise<ServiceRecord> {
    checkStatus(input.status);
    return this.transaction(async tx => {
      const before = await this.lockService(tx, input.id);
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
      const after = await this.readService(tx, input.id);
      await this.audit(tx, {
        actor: input.actor,
        action: 'service.status',
        subjectType: 'service',
        subjectId: after.id,
        team: after.team,
        before: serviceAuditView(before),
        after: serviceAuditView(after),
      });
      if (input.releaseReservation) {
        await this.releaseInTransaction(tx, after, input.actor, now);
      }
      return after;
    });
  }

  async releaseReservation(input: {
    serviceId: string;
    actor: string;
  }): Promise<ReservationRecord | undefined> {
    return this.transaction(async tx => {
      const service = await this.lockService(tx, input.serviceId);
      const released = await this.releaseInTransaction(
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
      const team = (await this.readService(tx, input.serviceId)).team;
      const ledger = await this.lockLedger(tx, team, input.change.pool);
      const before = await this.lockService(tx, input.serviceId);
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
      const current = await this.heldReservation(tx, before.id);
      const snapshot = await this.withHeld(tx, ledger, current?.id);
      const decision = decide(
        input.policy,
        overQuotaReasons(snapshot, amounts),
      );
      const now = new Date();

      if (decision.pending) {
        const reservation = await this.insertReservation(tx, {
          service: before,
          pool: input.change.pool,
          amounts,
          state: 'pending',
          now,
          actor: input.actor,
        });
        const approval = await this.insertApproval(tx, {
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
        await this.setReservationState(
          tx,
          current,
          'released',
          input.actor,
          now,
        );
      }
      const reservation = await this.insertReservation(tx, {
        service: before,
        pool: input.change.pool,
        amounts,
        state: 'held',
        now,
        actor: input.actor,
      });
      const service = await this.applyChange(
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
    return this.readQuota(this.db, team);
  }

  async listQuotas(): Promise<QuotaRecord[]> {
    const teams = await this.db<TeamQuotaRow>('team_quotas')
      .select('team')
      .orderBy('team');
    const quotas = await Promise.all(
      teams.map(({ team }) => this.readQuota(this.db, team)),
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
      await this.lockTeam(tx, team);
      const before = await this.readQuota(tx, team);
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
      const after = (await this.readQuota(tx, team))!;
      await this.audit(tx, {
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
      const ledger = await this.lockLedger(
        tx,
        found.team,
        reservationRow!.pool,
      );
      const service = await this.lockService(tx, found.service_id);
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
        const released = await this.setReservationState(
          tx,
          reservation,
          'released',
          input.actor,
          now,
        );
        const decided = await this.setApprovalState(
          tx,
          approval,
          'rejected',
          input.actor,
          now,
          input.comment,
        );
        let after = service;
        if (approval.kind === 'create') {
          after = await this.setStatus(tx, service, {
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
          ? await this.heldReservation(tx, service.id)
          : undefined;
      const snapshot = await this.withHeld(tx, ledger, current?.id);
      const reasons = overQuotaReasons(snapshot, amountsOf(reservation));
      if (reasons.length > 0 && !input.allowOverQuota) {
        throw new ConflictError(
          `Approving would over-allocate: ${reasons
            .map(r => r.message)
            .join('; ')}. Approve with allowOverQuota to grant it anyway`,
        );
      }
      if (current) {
        await this.setReservationState(
          tx,
          current,
          'released',
          input.actor,
          now,
        );
      }
      const held = await this.setReservationState(
        tx,
        reservation,
        'held',
        input.actor,
        now,
      );
      const decided = await this.setApprovalState(
        tx,
        approval,
        'approved',
        input.actor,
        now,
        input.comment,
      );
      const after =
        approval.kind === 'change'
          ? await this.applyChange(
              tx,
              service,
              approval.proposal!,
              input.actor,
              now,
            )
          : await this.setStatus(tx, service, {
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
    const limit = query.limit ?? DEFAULT_AUDIT_PAGE;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_AUDIT_PAGE) {
      throw new InputError(
        `limit must be a whole number from 1 to ${MAX_AUDIT_PAGE}; got ${query.limit}`,
      );
    }
    const builder = this.db<AuditEventRow>('audit_events');
    const equal: Array<[keyof ListAuditEventsQuery, string]> = [
      ['team', 'team'],
      ['actor', 'actor'],
      ['action', 'action'],
      ['subjectType', 'subject_type'],
      ['subjectId', 'subject_id'],
    ];
    for (const [key, column] of equal) {
      if (query[key] !== undefined) {
        builder.where(column, query[key] as string);
      }
    }
    if (query.since !== undefined) {
      builder.where('at', '>=', parseTime(query.since, 'since'));
    }
    if (query.until !== undefined) {
      builder.where('at', '<', parseTime(query.until, 'until'));
    }
    if (query.cursor !== undefined) {
      if (!/^\d+$/.test(query.cursor)) {
        throw new InputError(
          `cursor must be the nextCursor of a previous page; got '${query.cursor}'`,
        );
      }
      builder.where('id', '<', Number(query.cursor));
    }
    const rows = await builder.orderBy('id', 'desc').limit(limit + 1);
    const items = rows.slice(0, limit).map(toAuditEvent);
    return {
      items,
      nextCursor: rows.length > limit ? items[items.length - 1].id : undefined,
    };
  }

  // --- creation ---------------------------------------------------------------

  private async createInTransaction(
    tx: Knex.Transaction,
    input: CreateServiceInput,
    amounts: Amounts,
  ): Promise<CreateServiceResult> {
    const ledger = await this.lockLedger(tx, input.team, input.pool);
    const existing = await this.findByRequestKey(tx, input);
    if (existing) {
      return existing;
    }
    const snapshot = await this.withHeld(tx, ledger);
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
    const service = await this.readService(tx, id);
    await this.audit(tx, {
      actor: input.actor,
      action: 'service.create',
      subjectType: 'service',
      subjectId: id,
      team: input.team,
      after: serviceAuditView(service),
    });
    const reservation = await this.insertReservation(tx, {
      service,
      pool: input.pool,
      amounts,
      state: decision.pending ? 'pending' : 'held',
      now,
      actor: input.actor,
    });
    const approval = decision.pending
      ? await this.insertApproval(tx, {
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

  // --- ledger -------------------------------------------------------------------

  /** Locks the team's quota row (PostgreSQL) and reads the pool's allowance. */
  private async lockLedger(
    tx: Knex.Transaction,
    team: string,
    pool: string,
  ): Promise<Omit<LedgerSnapshot, 'heldGpuUnits' | 'heldMonthlyCostMicros'>> {
    const teamRow = await this.lockTeam(tx, team);
    if (!teamRow) {
      return { team, pool };
    }
    const poolRow = await tx<PoolQuotaRow>('pool_quotas')
      .where({ team, pool })
      .first();
    return {
      team,
      pool,
      nominalGpuUnits: readInteger(poolRow?.nominal_gpu_units),
      monthlyBudgetMicros: readInteger(teamRow.monthly_budget_micros),
    };
  }

  private async lockTeam(
    tx: Knex.Transaction,
    team: string,
  ): Promise<TeamQuotaRow | undefined> {
    const query = tx<TeamQuotaRow>('team_quotas').where({ team }).first();
    return this.lockRows ? query.forUpdate() : query;
  }

  /** Adds what the team holds, optionally leaving one reservation out. */
  private async withHeld(
    tx: Knex.Transaction,
    ledger: Omit<LedgerSnapshot, 'heldGpuUnits' | 'heldMonthlyCostMicros'>,
    excludeReservationId?: string,
  ): Promise<LedgerSnapshot> {
    const held = () => {
      const q = tx('reservations').where({ team: ledger.team, state: 'held' });
      return excludeReservationId ? q.whereNot('id', excludeReservationId) : q;
    };
    const [units] = await held()
      .where({ pool: ledger.pool })
      .sum({ total: 'gpu_units' });
    const [cost] = await held().sum({ total: 'monthly_cost_micros' });
    return {
      ...ledger,
      heldGpuUnits: readInteger(units?.total),
      heldMonthlyCostMicros: readInteger(cost?.total),
    };
  }

  private async heldReservation(
    tx: Knex.Transaction,
    serviceId: string,
  ): Promise<ReservationRecord | undefined> {
    const row = await tx<ReservationRow>('reservations')
      .where({ service_id: serviceId, state: 'held' })
      .first();
    return row ? toReservationRecord(row) : undefined;
  }

  private async insertReservation(
    tx: Knex.Transaction,
    options: {
      service: ServiceRecord;
      pool: string;
      amounts: Amounts;
      state: 'pending' | 'held';
      now: Date;
      actor: string;
    },
  ): Promise<ReservationRecord> {
    const { service, amounts, state, now } = options;
    const row: ReservationRow = {
      id: randomUUID(),
      service_id: service.id,
      team: service.team,
      pool: options.pool,
      gpu_units: amounts.gpuUnits,
      monthly_cost_micros: amounts.monthlyCostMicros,
      state,
      created_at: now,
      held_at: state === 'held' ? now : null,
      released_at: null,
    };
    await tx<ReservationRow>('reservations').insert(row);
    const reservation = toReservationRecord(row);
    await this.audit(tx, {
      actor: options.actor,
      action: state === 'held' ? 'reservation.hold' : 'reservation.request',
      subjectType: 'reservation',
      subjectId: reservation.id,
      team: service.team,
      after: reservation,
    });
    return reservation;
  }

  /** Moves a reservation to a new state, only from the state it was read in. */
  private async setReservationState(
    tx: Knex.Transaction,
    before: ReservationRecord,
    state: 'held' | 'released',
    actor: string,
    now: Date,
  ): Promise<ReservationRecord> {
    const changed = await tx<ReservationRow>('reservations')
      .where({ id: before.id, state: before.state })
      .update(
        state === 'held'
          ? { state, held_at: now }
          : { state, released_at: now },
      );
    if (changed !== 1) {
      throw new ConflictError(
        `Reservation ${before.id} changed concurrently; try again`,
      );
    }
    const after = toReservationRecord(
      (await tx<ReservationRow>('reservations')
        .where({ id: before.id })
        .first())!,
    );
    await this.audit(tx, {
      actor,
      action: state === 'held' ? 'reservation.hold' : 'reservation.release',
      subjectType: 'reservation',
      subjectId: before.id,
      team: before.team,
      before,
      after,
    });
    return after;
  }

  /**
   * Releases whatever the service holds or waits for, and withdraws approvals that
   * were waiting on a released reservation. Returns what it released.
   */
  private async releaseInTransaction(
    tx: Knex.Transaction,
    service: ServiceRecord,
    actor: string,
    now: Date,
  ): Promise<ReservationRecord[]> {
    const open = (
      await tx<ReservationRow>('reservations')
        .where({ service_id: service.id })
        .whereIn('state', ['held', 'pending'])
        .orderBy('created_at', 'asc')
    ).map(toReservationRecord);
    const released: ReservationRecord[] = [];
    for (const reservation of open) {
      released.push(
        await this.setReservationState(tx, reservation, 'released', actor, now),
      );
      const waiting = await tx<ApprovalRow>('approvals')
        .where({ reservation_id: reservation.id, state: 'pending' })
        .first();
      if (waiting) {
        await this.setApprovalState(
          tx,
          toApprovalRecord(waiting),
          'rejected',
          actor,
          now,
          'Withdrawn: the reservation was released',
        );
      }
    }
    return released;
  }

  // --- approvals ----------------------------------------------------------------

  private async insertApproval(
    tx: Knex.Transaction,
    options: {
      service: ServiceRecord;
      reservation: ReservationRecord;
      kind: 'create' | 'change';
      reasons: ApprovalReason[];
      proposal?: ServiceChange;
      now: Date;
      actor: string;
    },
  ): Promise<ApprovalRecord> {
    const row: ApprovalRow = {
      id: randomUUID(),
      service_id: options.service.id,
      reservation_id: options.reservation.id,
      team: options.service.team,
      kind: options.kind,
      reasons: JSON.stringify(options.reasons),
      proposal: toJson(options.proposal),
      state: 'pending',
      requested_by: options.actor,
      requested_at: options.now,
      decided_by: null,
      decided_at: null,
      comment: null,
    };
    await tx<ApprovalRow>('approvals').insert(row);
    const approval = toApprovalRecord(row);
    await this.audit(tx, {
      actor: options.actor,
      action: 'approval.request',
      subjectType: 'approval',
      subjectId: approval.id,
      team: approval.team,
      after: approval,
    });
    return approval;
  }

  private async setApprovalState(
    tx: Knex.Transaction,
    before: ApprovalRecord,
    state: 'approved' | 'rejected',
    actor: string,
    now: Date,
    comment?: string,
  ): Promise<ApprovalRecord> {
    const changed = await tx<ApprovalRow>('approvals')
      .where({ id: before.id, state: 'pending' })
      .update({
        state,
        decided_by: actor,
        decided_at: now,
        comment: comment ?? null,
      });
    if (changed !== 1) {
      throw new ConflictError(
        `Approval ${before.id} was decided concurrently; reload it`,
      );
    }
    const after = toApprovalRecord(
      (await tx<ApprovalRow>('approvals').where({ id: before.id }).first())!,
    );
    await this.audit(tx, {
      actor,
      action: state === 'approved' ? 'approval.approve' : 'approval.reject',
      subjectType: 'approval',
      subjectId: before.id,
      team: before.team,
      before,
      after,
    });
    return after;
  }

  // --- services -----------------------------------------------------------------

  private async readService(
    tx: Knex.Transaction,
    id: string,
  ): Promise<ServiceRecord> {
    const row = isUuid(id)
      ? await tx<ServiceRow>('services').where({ id }).first()
      : undefined;
    if (!row) {
      throw new NotFoundError(`No service with id '${id}'`);
    }
    return toServiceRecord(row);
  }

  private async lockService(
    tx: Knex.Transaction,
    id: string,
  ): Promise<ServiceRecord> {
    if (!isUuid(id)) {
      throw new NotFoundError(`No service with id '${id}'`);
    }
    const query = tx<ServiceRow>('services').where({ id }).first();
    const row = await (this.lockRows ? query.forUpdate() : query);
    if (!row) {
      throw new NotFoundError(`No service with id '${id}'`);
    }
    return toServiceRecord(row);
  }

  private async setStatus(
    tx: Knex.Transaction,
    before: ServiceRecord,
    options: {
      status: ServiceStatus;
      statusReason?: string;
      actor: string;
      now: Date;
    },
  ): Promise<ServiceRecord> {
    await tx<ServiceRow>('services')
      .where({ id: before.id })
      .update({
        status: options.status,
        status_reason: options.statusReason ?? null,
        updated_by: options.actor,
        updated_at: options.now,
      });
    const after = await this.readService(tx, before.id);
    await this.audit(tx, {
      actor: options.actor,
      action: 'service.status',
      subjectType: 'service',
      subjectId: before.id,
      team: before.team,
      before: serviceAuditView(before),
      after: serviceAuditView(after),
    });
    return after;
  }

  private async applyChange(
    tx: Knex.Transaction,
    before: ServiceRecord,
    change: ServiceChange,
    actor: string,
    now: Date,
  ): Promise<ServiceRecord> {
    await tx<ServiceRow>('services')
      .where({ id: before.id })
      .update({
        tier: change.tier,
        pool: change.pool,
        request: JSON.stringify(change.request),
        placement: JSON.stringify(change.placement),
        ...(change.quote !== undefined && { quote: toJson(change.quote) }),
        ...(change.manifests !== undefined && {
          manifests: toJson(change.manifests),
        }),
        updated_by: actor,
        updated_at: now,
      });
    const after = await this.readService(tx, before.id);
    await this.audit(tx, {
      actor,
      action: 'service.change',
      subjectType: 'service',
      subjectId: before.id,
      team: before.team,
      before: serviceAuditView(before),
      after: serviceAuditView(after),
    });
    return after;
  }

  // --- quota --------------------------------------------------------------------

  private async readQuota(
    db: Knex | Knex.Transaction,
    team: string,
  ): Promise<QuotaRecord | undefined> {
    const teamRow = await db<TeamQuotaRow>('team_quotas')
      .where({ team })
      .first();
    if (!teamRow) {
      return undefined;
    }
    const poolRows = await db<PoolQuotaRow>('pool_quotas')
      .where({ team })
      .orderBy('pool');
    const heldByPool = await db('reservations')
      .where({ team, state: 'held' })
      .groupBy('pool')
      .orderBy('pool')
      .select('pool')
      .sum({ units: 'gpu_units', cost: 'monthly_cost_micros' });
    return {
      team,
      pools: Object.fromEntries(
        poolRows.map(r => [
          r.pool,
          fromGpuUnits(readInteger(r.nominal_gpu_units)),
        ]),
      ),
      monthlyBudgetMicros: readInteger(teamRow.monthly_budget_micros),
      reservedGpuEquivalents: Object.fromEntries(
        heldByPool.map(r => [r.pool, fromGpuUnits(readInteger(r.units))]),
      ),
      reservedMonthlyCostMicros: heldByPool.reduce(
        (sum, r) => sum + readInteger(r.cost),
        0,
      ),
      updatedBy: teamRow.updated_by,
      updatedAt: toIso(teamRow.updated_at),
    };
  }

  // --- plumbing -----------------------------------------------------------------

  private async audit(tx: Knex.Transaction, event: AuditInput): Promise<void> {
    await tx('audit_events').insert({
      at: new Date(),
      actor: event.actor,
      action: event.action,
      subject_type: event.subjectType,
      subject_id: event.subjectId,
      team: event.team ?? null,
      before: toJson(event.before),
      after: toJson(event.after),
    });
  }

  /** Runs `fn` in a transaction, again when PostgreSQL aborted it for a retryable reason. */
  private async transaction<T>(
    fn: (tx: Knex.Transaction) => Promise<T>,
  ): Promise<T> {
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
  }
}

function decide(
  policy: AdmissionPolicy,
  overQuota: ApprovalReason[],
): { pending: boolean; reasons: ApprovalReason[] } {
  const policyReasons = policy.approvalReasons ?? [];
  if (overQuota.length > 0 && policy.whenOverQuota === 'reject') {
    throw new ConflictError(overQuota.map(r => r.message).join('; '));
  }
  const reasons = [...policyReasons, ...overQuota];
  return { pending: reasons.length > 0, reasons };
}

function checkReservation(reservation: ReservationRequest): Amounts {
  const gpuUnits = toGpuUnits(
    reservation.gpuEquivalents,
    'reservation.gpuEquivalents',
  );
  if (gpuUnits < 1) {
    throw new InputError(
      `reservation.gpuEquivalents must be greater than zero; got ${reservation.gpuEquivalents}`,
    );
  }
  return {
    gpuUnits,
    monthlyCostMicros: checkMicros(
      reservation.monthlyCostMicros,
      'reservation.monthlyCostMicros',
    ),
  };
}

function amountsOf(reservation: ReservationRecord): Amounts {
  return {
    gpuUnits: toGpuUnits(reservation.gpuEquivalents, 'reservation'),
    monthlyCostMicros: reservation.monthlyCostMicros,
  };
}

function checkPolicy(policy: AdmissionPolicy): void {
  if (
    policy?.whenOverQuota !== 'reject' &&
    policy?.whenOverQuota !== 'require-approval'
  ) {
    throw new InputError(
      `policy.whenOverQuota must be 'reject' or 'require-approval'; got '${policy?.whenOverQuota}'`,
    );
  }
}

function checkStatus(status: ServiceStatus): void {
  if (!SERVICE_STATUSES.includes(status)) {
    throw new InputError(
      `status must be one of ${SERVICE_STATUSES.join(', ')}; got '${status}'`,
    );
  }
}

function parseTime(value: string, what: string): Date {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) {
    throw new InputError(
      `${what} must be an ISO 8601 time such as 2025-01-31T00:00:00Z; got '${value}'`,
    );
  }
  return date;
}

/** Ids are UUIDs; anything else cannot exist (and PostgreSQL would reject it). */
function isUuid(value: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(
    value,
  );
}

function asArray<T>(value: T | T[]): T[] {
  return Array.isArray(value) ? value : [value];
}

/** JSON with object keys sorted, to compare requests regardless of key order. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}
