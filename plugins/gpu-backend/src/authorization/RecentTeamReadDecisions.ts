import { BackstageCredentials } from '@backstage/backend-plugin-api';
import { gpuServiceReadPermission } from '@gpu-platform/backstage-plugin-gpu-common';
import { PolicyDecision } from '@backstage/plugin-permission-common';
import { GpuAccess } from './GpuAccess';

/**
 * How long a caller's decision on `gpu.service.read` decides their quotes: a permission change (policy, group
 * membership) shows in quotes within this time. The quota, audit and cost routes ask the policy on every request.
 */
export const QUOTE_DECISION_TTL_MS = 5_000;

/** At most this many callers' decisions are kept; beyond it the oldest go first. */
export const QUOTE_DECISION_MAX_CALLERS = 10_000;

interface Entry {
  decision: Promise<PolicyDecision>;
  expiresAt: number;
}

/**
 * Whether a caller may read a team's quota, for quotes, without a request to the permission backend per quote: the
 * form quotes on every change, and each request costs a plugin token (signed and verified) and an HTTP round trip.
 *
 * One request per caller fetches the policy's decision on `gpu.service.read` without a resource (ALLOW, DENY, or
 * CONDITIONAL with the caller's conditions, as the list routes fetch it) and keeps it for
 * {@link QUOTE_DECISION_TTL_MS} from when it was asked; each quote applies it to its team here with the plugin's rules
 * (`GpuAccess.allowsTeam`), the same evaluation `AuthorizedGovernance.canReadTeam` makes, so one decision serves every
 * team. Concurrent quotes of one caller share the request. A failed request is not kept: the next quote asks again.
 *
 * Keyed by who the policy decided for: a user's entity ref with the service acting for them and the token's expiry
 * (a new token, with possibly new ownership claims, asks again), or a service's subject with its access restrictions.
 * Callers without either (no principal) are asked about on every quote. At most
 * {@link QUOTE_DECISION_MAX_CALLERS} callers are kept, the oldest evicted first.
 */
export class RecentTeamReadDecisions {
  private readonly entries = new Map<string, Entry>();
  private readonly ttlMs: number;
  private readonly maxCallers: number;
  private readonly now: () => number;

  constructor(
    private readonly options: {
      access: GpuAccess;
      /** Default {@link QUOTE_DECISION_TTL_MS}. */
      ttlMs?: number;
      /** Default {@link QUOTE_DECISION_MAX_CALLERS}. */
      maxCallers?: number;
      /** Milliseconds now (tests). */
      now?: () => number;
    },
  ) {
    this.ttlMs = options.ttlMs ?? QUOTE_DECISION_TTL_MS;
    this.maxCallers = Math.max(
      1,
      options.maxCallers ?? QUOTE_DECISION_MAX_CALLERS,
    );
    this.now = options.now ?? Date.now;
  }

  /** Whether the caller may read team-level data of the team, by a decision at most `ttlMs` old. */
  async canReadTeam(
    credentials: BackstageCredentials,
    team: string,
  ): Promise<boolean> {
    const decision = await this.decisionOf(credentials);
    return this.options.access.allowsTeam(decision, team);
  }

  private decisionOf(
    credentials: BackstageCredentials,
  ): Promise<PolicyDecision> {
    const key = callerKey(credentials);
    if (key === undefined) return this.ask(credentials);
    const now = this.now();
    const kept = this.entries.get(key);
    if (kept && kept.expiresAt > now) return kept.decision;
    if (kept) this.entries.delete(key);
    this.evict(now);
    const entry: Entry = {
      decision: this.ask(credentials),
      expiresAt: now + this.ttlMs,
    };
    this.entries.set(key, entry);
    entry.decision.catch(() => {
      // Errors are not kept: forget this request (unless a newer one took its place), the next quote asks again.
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    return entry.decision;
  }

  private ask(credentials: BackstageCredentials): Promise<PolicyDecision> {
    return this.options.access.decision(credentials, gpuServiceReadPermission);
  }

  /**
   * Drops expired entries and, at capacity, the oldest. Entries are inserted in the order they expire (one TTL), so
   * both are at the front of the map.
   */
  private evict(now: number): void {
    for (const [key, entry] of this.entries) {
      if (entry.expiresAt > now && this.entries.size < this.maxCallers) break;
      this.entries.delete(key);
    }
  }
}

/** Who a decision was made for, or undefined for a caller without a user or service principal. */
function callerKey(credentials: BackstageCredentials): string | undefined {
  const principal = credentials.principal as {
    type?: string;
    userEntityRef?: string;
    actor?: { subject?: string };
    subject?: string;
    accessRestrictions?: unknown;
  };
  if (principal.type === 'user' && principal.userEntityRef) {
    return JSON.stringify([
      'user',
      principal.userEntityRef,
      principal.actor?.subject ?? null,
      credentials.expiresAt?.getTime() ?? null,
    ]);
  }
  if (principal.type === 'service' && principal.subject) {
    return JSON.stringify([
      'service',
      principal.subject,
      principal.accessRestrictions ?? null,
    ]);
  }
  return undefined;
}
