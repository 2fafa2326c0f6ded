/** What a transaction wrote, when it says: one team's ledger and one pool's holdings (a create). */
export interface WriteScope {
  team: string;
  pool: string;
}

/** Counts of the transactions ended that may change a team, taken when a create starts. */
export interface ScopeStamp {
  /** Transactions without a scope. */
  all: number;
  /** Scoped transactions of the team. */
  team: number;
  /** Scoped transactions of the team on the create's pool. */
  teamOnPool: number;
}

const teamPoolKey = (scope: WriteScope) => `${scope.team}\u0000${scope.pool}`;

/** The versions a snapshot of what every pool holds was read at (see {@link WriteVersions.poolsVersion}). */
export interface PoolsVersion {
  all: number;
  pools: ReadonlyMap<string, number>;
}

/**
 * Counts the transactions this store has ended, so that the quotes' snapshots (a team's ledger and month, what every
 * pool holds) read before one of them are known to be stale: a transaction without a scope makes every snapshot
 * stale; one with a scope only the snapshots of its team and the holdings of its pool. Another replica's writes are
 * seen when a snapshot is older than the quotes' maximum age, as before.
 */
export class WriteVersions {
  private all = 0;
  private readonly teams = new Map<string, number>();
  private readonly pools = new Map<string, number>();
  /** Scoped transactions by team and pool. */
  private readonly teamPools = new Map<string, number>();

  ended(scope?: WriteScope): void {
    if (!scope) {
      this.all += 1;
      return;
    }
    this.teams.set(scope.team, (this.teams.get(scope.team) ?? 0) + 1);
    this.pools.set(scope.pool, (this.pools.get(scope.pool) ?? 0) + 1);
    const key = teamPoolKey(scope);
    this.teamPools.set(key, (this.teamPools.get(key) ?? 0) + 1);
  }

  /** Where the transactions that may change `scope`'s team stand now (see {@link WriteVersions.onlyOnPoolBetween}). */
  stamp(scope: WriteScope): ScopeStamp {
    return {
      all: this.all,
      team: this.teams.get(scope.team) ?? 0,
      teamOnPool: this.teamPools.get(teamPoolKey(scope)) ?? 0,
    };
  }

  /**
   * Whether every transaction that ended between two stamps of one scope and may have changed the team's ledger or
   * month was scoped to the team on the scope's pool: none without a scope, none of the team on another pool. Such
   * transactions (creates) take the team's lock one after another, so the last of them read under it what the others
   * wrote, and nothing else of the team changed meanwhile.
   */
  static onlyOnPoolBetween(before: ScopeStamp, after: ScopeStamp): boolean {
    return (
      after.all === before.all &&
      after.team - before.team === after.teamOnPool - before.teamOnPool
    );
  }

  /** The version of a team's snapshots: equal while no transaction that may have changed them has ended. */
  teamVersion(team: string): string {
    return `${this.all}/${this.teams.get(team) ?? 0}`;
  }

  /** The scoped transactions on `pool` ended so far (its entry in {@link WriteVersions.poolsVersion}). */
  poolCount(pool: string): number {
    return this.pools.get(pool) ?? 0;
  }

  poolsVersion(): PoolsVersion {
    return { all: this.all, pools: new Map(this.pools) };
  }

  /**
   * The pools whose holdings may have changed since `version`: none while nothing was written, every pool (`'all'`)
   * after a transaction without a scope.
   */
  poolsChangedSince(version: PoolsVersion): 'all' | string[] {
    if (version.all !== this.all) {
      return 'all';
    }
    const changed: string[] = [];
    for (const [pool, count] of this.pools) {
      if (version.pools.get(pool) !== count) changed.push(pool);
    }
    return changed;
  }
}
