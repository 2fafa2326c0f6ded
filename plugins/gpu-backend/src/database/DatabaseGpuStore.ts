import {
  DatabaseService,
  resolvePackagePath,
} from '@backstage/backend-plugin-api';
import { ConflictError } from '@backstage/errors';
import type {
  ClusterDriftReport,
  MonthSpend,
  PoolCapacityPolicy,
  PoolHeldUnits,
  TeamAllowance,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { Knex } from 'knex';
import {
  checkPhysicalFit,
  GovernanceContext,
  governanceContext,
  GovernedPlatform,
} from '../admission';
import { checkPolicy, checkReservation } from './reservationAmounts';
import { previewApprovals } from './approvalPreview';
import { getApproval, listApprovals } from './approvals';
import { AuditInput, queryAuditEvents, writeAuditEvent } from './audit';
import { listApprovalPage, listServicePage } from './pagedLists';
import {
  createServiceInTransaction,
  CreateServiceOutcome,
  LIVE_NAME_INDEX,
  REQUEST_KEY_INDEX,
} from './createService';
import { checkDecision, decideApprovalInTransaction } from './decideApproval';
import { findByRequestKey } from './requestKey';
import { readClusterDrift, writeClusterDrift } from './drift';
import {
  confirmServiceInTransaction,
  listOpenPullRequests,
  listUnconfirmedServices,
  settlePullRequestInTransaction,
} from './serviceConfirmation';
import { readHeldByPool } from './governance';
import { listServiceReservations, releaseServiceReservations } from './ledger';
import { readMonthSpend } from './monthSpend';
import {
  listAllowances,
  listQuotas,
  quotaRows,
  readQuota,
  readTeamLedger,
  writeQuota,
} from './quota';
import { replaceReservationInTransaction } from './replaceReservation';
import { retryPullRequestInTransaction } from './serviceRetry';
import { isUuid, lockService } from './services';
import {
  listPendingChanges,
  pendingChangeOf,
  rollBackChangeInTransaction,
  settleChangeInTransaction,
} from './serviceChanges';
import {
  getService,
  listServices,
  listServicesWithReservations,
} from './serviceQueries';
import {
  checkStatus,
  updateServiceStatusInTransaction,
} from './serviceStatusUpdate';
import {
  listActiveBatchJobs,
  listBatchJobAllocations,
  releaseBatchJobInTransaction,
  reserveBatchJobInTransaction,
} from './batchJobs';
import { placeBatchJobInTransaction } from './batchJobPlacement';
import { isRetryableTransactionError, isUniqueViolation } from './transactions';
import {
  PoolsVersion,
  ScopeStamp,
  WriteScope,
  WriteVersions,
} from './writeVersions';
import {
  ApprovalPageQuery,
  BatchJobRecord,
  BatchJobReservation,
  ReserveBatchJobInput,
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
  RetryPullRequestInput,
  RetryPullRequestResult,
  ReservationRecord,
  ServiceListing,
  ServicePageQuery,
  PullRequestState,
  ServiceChangeRecord,
  ServiceReason,
  ServiceRecord,
  TeamLedger,
  UpdateServiceStatusInput,
} from './types';

const migrationsDir = resolvePackagePath(
  '@gpu-platform/backstage-plugin-gpu-backend',
  'migrations',
);

const MAX_TRANSACTION_ATTEMPTS = 5;

/** Carries a dry run's answer out of the transaction it rolls back. */
class DryRunAnswer extends Error {
  constructor(readonly result: ReplaceReservationResult) {
    super('dry run: rolled back');
  }
}

/**
 * {@link GpuStore} on the plugin's database (SQLite or PostgreSQL).
 *
 * Quota decisions serialise per team: on PostgreSQL by locking the team's
 * `team_quotas` row (`SELECT ... FOR UPDATE`) before reading what is held; on SQLite
 * because knex runs one connection and so one transaction at a time. Every path that
 * makes a reservation count (create, change, approve) takes that lock first, then the
 * service row, then touches reservations, so two writers never wait on each other in
 * opposite orders. Every one of them then takes a lock on the pool (an advisory lock on
 * PostgreSQL), since capacity is shared by every team, and reads the admission snapshot
 * (`readAdmissionSnapshot`) that the pure rules of `../admission` decide on.
 *
 * Admission is governed with the platform (pools' physical capacity, prices and
 * capacity types, environments) and a clock: see `README.md`, "Governance".
 */
export class DatabaseGpuStore implements GpuStore {
  /**
   * Connects to the plugin database and brings its schema up to date. `platform` is what admission is governed
   * with; `clock` the current time (injectable for tests; the system clock by default).
   */
  static async create(options: {
    database: DatabaseService;
    platform: GovernedPlatform;
    clock?: () => Date;
    /** Requests of one team that may wait for approval at once (default 20). */
    maxPendingApprovalsPerTeam?: number;
    /** A request within quota beyond its pool's free capacity: `approval` (default) or `refuse`. */
    whenOverPoolCapacity?: PoolCapacityPolicy;
  }): Promise<DatabaseGpuStore> {
    const { database } = options;
    const client = await database.getClient();
    if (!database.migrations?.skip) {
      await client.migrate.latest({ directory: migrationsDir });
    }
    return new DatabaseGpuStore(
      client,
      governanceContext(options.platform, {
        clock: options.clock,
        maxPendingApprovalsPerTeam: options.maxPendingApprovalsPerTeam,
        whenOverPoolCapacity: options.whenOverPoolCapacity,
      }),
    );
  }

  /** The transactions ended so far: a quote's snapshot read before one that may have changed it is stale. */
  private readonly writes = new WriteVersions();
  private readonly quotaSnapshots = new Map<string, LedgerSnapshotEntry>();
  private readonly monthSnapshots = new Map<
    string,
    { version: string; readAt: number; spend: Promise<MonthSpend> }
  >();

  private poolHeldSnapshot?: {
    version: PoolsVersion;
    readAt: number;
    held: Promise<Record<string, PoolHeldUnits>>;
  };

  private constructor(
    private readonly db: Knex,
    private readonly governance: GovernanceContext,
  ) {}

  async createServiceWithReservation(
    input: CreateServiceInput,
  ): Promise<CreateServiceResult> {
    const amounts = checkReservation(input.reservation);
    checkPolicy(input.policy);
    checkPhysicalFit(
      this.governance,
      input.pool,
      amounts,
      input.placement.migProfile,
    );
    try {
      let started: CreateStart | undefined;
      // A create writes the team's ledger and what its pool holds, nothing else the quotes' snapshots read.
      const { result, after } = await this.transaction(
        tx => {
          started = this.createStart(input);
          return createServiceInTransaction(
            tx,
            input,
            amounts,
            this.governance,
          );
        },
        { team: input.team, pool: input.pool },
      );
      if (after && started) {
        this.keepSnapshotsAfterCreate(input, started, after);
      }
      return result;
    } catch (error) {
      if (
        input.requestKey !== undefined &&
        isUniqueViolation(error, REQUEST_KEY_INDEX)
      ) {
        // A concurrent call with the same key committed first; answer as it did.
        const existing = await this.transaction(tx =>
          findByRequestKey(tx, input),
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
    return getService(this.db, id);
  }

  async confirmService(input: {
    id: string;
    actor: string;
    pullRequest?: { url: string; number: number; mergeBy: Date };
  }): Promise<ServiceRecord> {
    return this.transaction(tx =>
      confirmServiceInTransaction(tx, {
        ...input,
        now: this.governance.now(),
      }),
    );
  }

  async listUnconfirmedServices(before: Date): Promise<ServiceRecord[]> {
    return listUnconfirmedServices(this.db, before);
  }

  async settlePullRequest(input: {
    id: string;
    state: Exclude<PullRequestState, 'open'>;
    actor: string;
  }): Promise<ServiceRecord | undefined> {
    return this.transaction(tx =>
      settlePullRequestInTransaction(tx, {
        ...input,
        now: this.governance.now(),
      }),
    );
  }

  async listOpenPullRequests(): Promise<ServiceRecord[]> {
    return listOpenPullRequests(this.db);
  }

  async listServices(
    filter: ListServicesFilter = {},
  ): Promise<ServiceRecord[]> {
    return listServices(this.db, filter);
  }

  async listServicesWithReservations(
    filter: ListServicesFilter = {},
  ): Promise<ServiceListing[]> {
    return listServicesWithReservations(this.db, filter);
  }

  async updateServiceStatus(
    input: UpdateServiceStatusInput,
  ): Promise<ServiceRecord> {
    checkStatus(input.status);
    return this.transaction(tx => updateServiceStatusInTransaction(tx, input));
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
        this.governance.now(),
      );
      return released[0];
    });
  }

  async replaceReservation(
    input: ReplaceReservationInput,
  ): Promise<ReplaceReservationResult> {
    const amounts = checkReservation(input.reservation);
    checkPolicy(input.policy);
    checkPhysicalFit(
      this.governance,
      input.change.pool,
      amounts,
      input.change.placement.migProfile,
    );
    if (!input.dryRun) {
      return this.transaction(tx =>
        replaceReservationInTransaction(tx, input, amounts, this.governance),
      );
    }
    // A dry run: admission weighs the change in a transaction that is always rolled back.
    try {
      await this.transaction(async tx => {
        throw new DryRunAnswer(
          await replaceReservationInTransaction(
            tx,
            input,
            amounts,
            this.governance,
          ),
        );
      });
    } catch (error) {
      if (error instanceof DryRunAnswer) return error.result;
      throw error;
    }
    throw new Error('unreachable: a dry run always rolls back');
  }

  async retryPullRequest(
    input: RetryPullRequestInput,
  ): Promise<RetryPullRequestResult> {
    const amounts = checkReservation(input.reservation);
    checkPolicy(input.policy);
    checkPhysicalFit(
      this.governance,
      input.change.pool,
      amounts,
      input.change.placement.migProfile,
    );
    try {
      return await this.transaction(tx =>
        retryPullRequestInTransaction(tx, input, amounts, this.governance),
      );
    } catch (error) {
      if (isUniqueViolation(error, LIVE_NAME_INDEX)) {
        throw new ConflictError(
          `A live service named '${input.change.request.name}' exists in its namespace; it cannot be retried beside it`,
        );
      }
      throw error;
    }
  }

  async getPendingChange(
    serviceId: string,
  ): Promise<ServiceChangeRecord | undefined> {
    return isUuid(serviceId) ? pendingChangeOf(this.db, serviceId) : undefined;
  }

  async listPendingChanges(): Promise<ServiceChangeRecord[]> {
    return listPendingChanges(this.db);
  }

  async settleChange(input: {
    changeId: string;
    state: 'merged' | 'withdrawn';
    actor: string;
  }): Promise<ServiceChangeRecord | undefined> {
    return this.transaction(tx =>
      settleChangeInTransaction(tx, { ...input, now: this.governance.now() }),
    );
  }

  async rollBackChange(input: {
    changeId: string;
    state: 'closed' | 'expired' | 'unconfirmed';
    reason: ServiceReason;
    statusReason: string;
    actor: string;
  }): Promise<
    { service: ServiceRecord; change: ServiceChangeRecord } | undefined
  > {
    return this.transaction(tx =>
      rollBackChangeInTransaction(tx, {
        ...input,
        now: this.governance.now(),
      }),
    );
  }

  async listReservations(serviceId: string): Promise<ReservationRecord[]> {
    return listServiceReservations(this.db, serviceId);
  }

  async getQuota(team: string): Promise<QuotaRecord | undefined> {
    return readQuota(this.db, team);
  }

  async getLedgerSnapshot(
    team: string,
    maxAgeMs: number,
  ): Promise<TeamLedger | undefined> {
    const now = Date.now();
    const cached = this.quotaSnapshots.get(team);
    const version = this.writes.teamVersion(team);
    if (
      cached &&
      cached.version === version &&
      now - cached.readAt <= maxAgeMs
    ) {
      return cached.ledger;
    }
    const snapshot: LedgerSnapshotEntry = {
      version,
      readAt: now,
      ledger: readTeamLedger(this.db, team).then(found => {
        const ledger = found && {
          allowance: found.allowance,
          reservedGpuUnits: found.reservedGpuUnits,
          reservedMonthlyCostMicros: found.reservedMonthlyCostMicros,
        };
        snapshot.settled = ledger;
        return ledger;
      }),
    };
    this.quotaSnapshots.set(team, snapshot);
    snapshot.ledger.catch(() => {
      if (this.quotaSnapshots.get(team) === snapshot) {
        this.quotaSnapshots.delete(team);
      }
    });
    return snapshot.ledger;
  }

  async getMonthSpendSnapshot(
    team: string,
    maxAgeMs: number,
  ): Promise<MonthSpend> {
    const now = Date.now();
    const cached = this.monthSnapshots.get(team);
    const version = this.writes.teamVersion(team);
    if (
      cached &&
      cached.version === version &&
      now - cached.readAt <= maxAgeMs
    ) {
      return cached.spend;
    }
    const snapshot = {
      version,
      readAt: now,
      spend: readMonthSpend(
        this.db,
        this.governance,
        team,
        this.governance.now(),
      ),
    };
    this.monthSnapshots.set(team, snapshot);
    snapshot.spend.catch(() => {
      if (this.monthSnapshots.get(team) === snapshot) {
        this.monthSnapshots.delete(team);
      }
    });
    return snapshot.spend;
  }

  async getPoolHeldSnapshot(
    maxAgeMs: number,
  ): Promise<Record<string, PoolHeldUnits>> {
    const now = Date.now();
    const cached = this.poolHeldSnapshot;
    const changed =
      cached && now - cached.readAt <= maxAgeMs
        ? this.writes.poolsChangedSince(cached.version)
        : 'all';
    if (cached && changed !== 'all' && changed.length === 0) {
      return cached.held;
    }
    const version = this.writes.poolsVersion();
    // After creates on some pools, only those pools are read again; the snapshot keeps its age.
    const snapshot =
      cached && changed !== 'all'
        ? {
            version,
            readAt: cached.readAt,
            held: withPoolsReadAgain(
              cached.held,
              changed,
              readHeldByPool(this.db, { pools: changed }),
            ),
          }
        : { version, readAt: now, held: readHeldByPool(this.db) };
    this.poolHeldSnapshot = snapshot;
    snapshot.held.catch(() => {
      if (this.poolHeldSnapshot === snapshot) {
        this.poolHeldSnapshot = undefined;
      }
    });
    return snapshot.held;
  }

  async listQuotas(): Promise<QuotaRecord[]> {
    return listQuotas(this.db);
  }

  async listAllowances(): Promise<TeamAllowance[]> {
    return listAllowances(this.db);
  }

  async putQuota(input: {
    team: string;
    quota: QuotaSpec;
    actor: string;
  }): Promise<QuotaRecord> {
    const { team, quota, actor } = input;
    const { budget, pools } = quotaRows(team, quota);
    return this.transaction(tx =>
      writeQuota(tx, { team, budget, pools, actor }),
    );
  }

  async listApprovals(
    filter: { state?: string; team?: string; serviceId?: string } = {},
  ): Promise<ApprovalRecord[]> {
    return listApprovals(this.db, filter);
  }

  async listServicePage(query: ServicePageQuery) {
    return listServicePage(this.db, query);
  }

  async listApprovalPage(query: ApprovalPageQuery) {
    return listApprovalPage(this.db, query);
  }

  async getApproval(id: string): Promise<ApprovalRecord | undefined> {
    return getApproval(this.db, id);
  }

  /**
   * Approvals with each pending one weighed again now: its `reasons` and `overage` against the current quotas,
   * budgets, spend, pool capacity and policy, read once for all of them; decided ones as recorded.
   */
  async previewApprovals(
    approvals: ApprovalRecord[],
  ): Promise<ApprovalRecord[]> {
    return previewApprovals(this.db, this.governance, approvals);
  }

  async decideApproval(
    input: DecideApprovalInput,
  ): Promise<DecideApprovalResult> {
    checkDecision(input);
    return this.transaction(tx =>
      decideApprovalInTransaction(tx, input, this.governance),
    );
  }

  async listAuditEvents(
    query: ListAuditEventsQuery = {},
  ): Promise<AuditEventPage> {
    return queryAuditEvents(this.db, query);
  }

  async recordAuditEvent(event: AuditInput): Promise<void> {
    await this.transaction(tx => writeAuditEvent(tx, event));
  }

  async putClusterDrift(report: ClusterDriftReport): Promise<void> {
    await writeClusterDrift(this.db, report);
  }

  async listClusterDrift(): Promise<ClusterDriftReport[]> {
    return readClusterDrift(this.db);
  }

  async reserveBatchJob(
    input: ReserveBatchJobInput,
  ): Promise<BatchJobReservation> {
    return this.transaction(tx =>
      reserveBatchJobInTransaction(tx, this.governance, input),
    );
  }

  async releaseBatchJob(input: {
    id: string;
    reason: string;
    actor: string;
    rolledBack?: boolean;
    at?: Date;
  }): Promise<BatchJobRecord | undefined> {
    return this.transaction(tx =>
      releaseBatchJobInTransaction(tx, {
        ...input,
        now: this.governance.now(),
      }),
    );
  }

  async placeBatchJob(input: {
    id: string;
    workerCluster: string;
    pool: string;
    /** The new pool's price of one GPU for a month: the reservation's monthly cost is counted at it. */
    monthlyCostMicrosPerGpu: number;
    actor: string;
  }): Promise<BatchJobRecord | undefined> {
    return this.transaction(tx =>
      placeBatchJobInTransaction(tx, {
        ...input,
        now: this.governance.now(),
      }),
    );
  }

  async listActiveBatchJobs(): Promise<BatchJobRecord[]> {
    return listActiveBatchJobs(this.db);
  }

  async listBatchJobAllocations(
    filter: { team?: string; overlapping?: { from: Date; to: Date } } = {},
  ) {
    return listBatchJobAllocations(this.db, filter);
  }

  /** What a create's transaction starts from, to tell afterwards whether its reads can become the quotes' snapshots. */
  private createStart(scope: WriteScope): CreateStart {
    const { team } = scope;
    const cached = this.quotaSnapshots.get(team);
    return {
      stamp: this.writes.stamp(scope),
      at: Date.now(),
      // A ledger read that finished before the create started, at the team's current version: it holds nothing the
      // create wrote.
      ledger:
        cached?.settled && cached.version === this.writes.teamVersion(team)
          ? { readAt: cached.readAt, ledger: cached.settled }
          : undefined,
    };
  }

  /**
   * After a create, what admission read under the team's and the pool's locks with what the create holds becomes the
   * quotes' snapshots of the team's month and ledger, when every transaction of this store that ended since it
   * started and may have changed them was a create of the team on the same pool (committed before this one took the
   * locks, so in what it read; this store's concurrent creates of one team and pool keep the snapshots current). The
   * ledger keeps the allowance and the other pools of the snapshot it started from, and that snapshot's age. The
   * pool's holdings become part of the snapshot of what every pool holds ({@link keepPoolHeldAfterCreate}).
   */
  private keepSnapshotsAfterCreate(
    input: { team: string; pool: string },
    started: CreateStart,
    after: NonNullable<CreateServiceOutcome['after']>,
  ): void {
    const ended = this.writes.stamp(input);
    // A transaction without a scope that ended meanwhile may have changed anything, after admission read it.
    if (ended.all !== started.stamp.all) {
      return;
    }
    this.keepPoolHeldAfterCreate(input.pool, after.poolHeld, ended.all);
    if (!WriteVersions.onlyOnPoolBetween(started.stamp, ended)) {
      return;
    }
    const version = this.writes.teamVersion(input.team);
    this.monthSnapshots.set(input.team, {
      version,
      readAt: started.at,
      spend: Promise.resolve(after.month),
    });
    if (started.ledger) {
      const { allowance, reservedGpuUnits } = started.ledger.ledger;
      const reserved = {
        ...reservedGpuUnits,
        [input.pool]: after.heldGpuUnits,
      };
      if (after.heldGpuUnits === 0) delete reserved[input.pool];
      const ledger: TeamLedger = {
        allowance,
        reservedGpuUnits: reserved,
        reservedMonthlyCostMicros: after.heldMonthlyCostMicros,
      };
      this.quotaSnapshots.set(input.team, {
        version,
        readAt: started.ledger.readAt,
        ledger: Promise.resolve(ledger),
        settled: ledger,
      });
    }
  }

  /**
   * After a create that no transaction without a scope ended during, the snapshot of what every pool holds takes the
   * pool's holdings as admission read them under the pool's lock with what the create holds: every create on the pool
   * that ended before had committed by then. A snapshot read before a transaction without a scope is left to be read
   * again; the other pools keep their versions (those changed since are read again) and the snapshot its age.
   */
  private keepPoolHeldAfterCreate(
    pool: string,
    held: PoolHeldUnits,
    unscopedEnded: number,
  ): void {
    const cached = this.poolHeldSnapshot;
    if (!cached || cached.version.all !== unscopedEnded) {
      return;
    }
    const snapshot = {
      version: {
        all: cached.version.all,
        pools: new Map(cached.version.pools).set(
          pool,
          this.writes.poolCount(pool),
        ),
      },
      readAt: cached.readAt,
      held: cached.held.then(before => {
        const next = { ...before };
        if (held.units > 0) next[pool] = held;
        else delete next[pool];
        return next;
      }),
    };
    this.poolHeldSnapshot = snapshot;
    snapshot.held.catch(() => {
      if (this.poolHeldSnapshot === snapshot) {
        this.poolHeldSnapshot = undefined;
      }
    });
  }

  /** Runs `fn` in a transaction, again when PostgreSQL aborted it for a retryable reason. */
  private async transaction<T>(
    fn: (tx: Knex.Transaction) => Promise<T>,
    scope?: WriteScope,
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
      this.writes.ended(scope);
    }
  }
}

/** A team's ledger snapshot for the quotes; `settled` once its read has answered (undefined: no quota, or not yet). */
interface LedgerSnapshotEntry {
  version: string;
  readAt: number;
  ledger: Promise<TeamLedger | undefined>;
  settled?: TeamLedger;
}

/** When a create's transaction started: the transactions ended by then, the time, and the team's settled ledger. */
interface CreateStart {
  stamp: ScopeStamp;
  at: number;
  ledger?: { readAt: number; ledger: TeamLedger };
}

/** What every pool holds: `cached`, with the `pools` read again replaced by `fresh` (absent there: nothing held). */
async function withPoolsReadAgain(
  cached: Promise<Record<string, PoolHeldUnits>>,
  pools: readonly string[],
  fresh: Promise<Record<string, PoolHeldUnits>>,
): Promise<Record<string, PoolHeldUnits>> {
  const [before, after] = await Promise.all([cached, fresh]);
  const held = { ...before };
  for (const pool of pools) {
    delete held[pool];
  }
  return { ...held, ...after };
}
