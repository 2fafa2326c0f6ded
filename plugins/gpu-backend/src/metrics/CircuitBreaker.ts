/** When a {@link CircuitBreaker} opens and for how long. */
export interface CircuitBreakerSettings {
  /** Consecutive failures (queries without an answer) that open the circuit. */
  failures: number;
  /** How long an open circuit refuses queries before letting one probe through. */
  openMs: number;
}

export const DEFAULT_CIRCUIT_BREAKER: CircuitBreakerSettings = {
  failures: 5,
  openMs: 30_000,
};

/** What the breaker lets a query do: go ahead (possibly as the one half-open probe), or not, and why. */
export type Admission =
  | { allowed: true; probe: boolean }
  | { allowed: false; reason: string };

/**
 * A circuit breaker for one Prometheus: closed, it lets every query through and counts consecutive failures (a query
 * that got no answer: timed out or could not connect); at `failures` it opens and refuses queries for `openMs`, so
 * cards answer at once with allocation cost instead of each waiting for its own timeout; then it is half-open and
 * lets exactly one probe through: an answer closes it, a failure opens it again. Any answer, even an error answer,
 * shows Prometheus is there and resets the count.
 */
export class CircuitBreaker {
  private consecutiveFailures = 0;
  private openUntil: number | undefined;
  private probing = false;

  constructor(
    private readonly settings: CircuitBreakerSettings = DEFAULT_CIRCUIT_BREAKER,
    private readonly clock: () => number = () => Date.now(),
  ) {}

  /** `closed`, `open` or `half-open`, for logs and tests. */
  get state(): 'closed' | 'open' | 'half-open' {
    if (this.openUntil === undefined) return 'closed';
    return this.clock() < this.openUntil ? 'open' : 'half-open';
  }

  /** Whether a query may be sent now; a half-open circuit admits one probe at a time. */
  admit(): Admission {
    if (this.openUntil === undefined) return { allowed: true, probe: false };
    const now = this.clock();
    if (now < this.openUntil || this.probing) {
      const seconds = Math.max(1, Math.ceil((this.openUntil - now) / 1000));
      return {
        allowed: false,
        reason: `Prometheus left ${
          this.consecutiveFailures
        } queries in a row without an answer; it is asked again ${
          this.probing ? 'when the query probing it answers' : `in ${seconds} s`
        }`,
      };
    }
    this.probing = true;
    return { allowed: true, probe: true };
  }

  /** Prometheus answered. */
  succeeded(probe: boolean): void {
    if (probe) this.probing = false;
    this.consecutiveFailures = 0;
    this.openUntil = undefined;
  }

  /** A query got no answer. */
  failed(probe: boolean): void {
    if (probe) this.probing = false;
    this.consecutiveFailures += 1;
    if (probe || this.consecutiveFailures >= this.settings.failures) {
      this.openUntil = this.clock() + this.settings.openMs;
    }
  }

  /** A query ended without saying anything about Prometheus (the caller's deadline cut it). */
  abandoned(probe: boolean): void {
    if (probe) this.probing = false;
  }
}
