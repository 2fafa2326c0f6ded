/** What a transaction wrote, when it says: one team's ledger and one pool's holdings (a create). */
export interface WriteScope {
  team: string;
  pool: string;
}

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
  private count = 0;
  private readonly teams = new Map<string, number>();
  private readonly pools = new Map<string, number>();

  ended(scope?: WriteScope): void {
    this.count += 1;
    if (!scope) {
      this.all += 1;
      return;
    }
    this.teams.set(scope.team, (this.teams.get(scope.team) ?? 0) + 1);
    this.pools.set(scope.pool, (this.pools.get(scope.pool) ?? 0) + 1);
  }

  /** How many transactions have ended, scoped or not: equal before and after a read when none ended meanwhile. */
  endedCount(): number {
    return this.count;
  }

  /** The version of a team's snapshots: equal while no transaction that may have changed them has ended. */
  teamVersion(team: string): string {
    return `${this.all}/${this.teams.get(team) ?? 0}`;
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
