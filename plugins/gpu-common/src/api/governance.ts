import { UsdMicros } from '../cost/money';
import { ApprovalView, GpuServiceView } from './types';

/**
 * A team's quota and what is held against it (`GET` and `PUT /api/gpu/teams/:team/quota`).
 *
 * @public
 */
export interface TeamQuotaView {
  team: string;
  /** Nominal GPU-equivalents per pool. */
  pools: Record<string, number>;
  monthlyBudgetMicros: UsdMicros;
  /** GPU-equivalents held by approved services per pool, including pools without quota. */
  reservedGpuEquivalents: Record<string, number>;
  /** Projected monthly cost held over all pools. */
  reservedMonthlyCostMicros: UsdMicros;
  updatedBy: string;
  updatedAt: string;
}

/**
 * Body of `PUT /api/gpu/teams/:team/quota`: replaces the team's quota.
 *
 * @public
 */
export interface PutTeamQuotaBody {
  /** GPU-equivalents per pool, 0 to 100,000. Pools left out get no quota. */
  pools: Record<string, number>;
  /** USD, e.g. `"4000"` or `"1250.50"`. */
  monthlyBudget: string | number;
}

/**
 * Body of `POST /api/gpu/approvals/:id/approve|reject`.
 *
 * @public
 */
export interface ApprovalDecisionBody {
  comment?: string;
  /**
   * Approve even when the request does not fit the team's quota or budget; off unless `true`. Without it an
   * approval that would over-allocate is refused with 409. Never beyond the pool's physical capacity (409 even
   * with it). What was granted beyond quota and budget is recorded on the approval (`overage`) and audited.
   */
  allowOverQuota?: boolean;
}

/**
 * Response of `POST /api/gpu/approvals/:id/approve|reject`.
 *
 * @public
 */
export interface ApprovalDecisionResponse {
  approval: ApprovalView;
  service: GpuServiceView;
}

/**
 * One recorded change (`GET /api/gpu/audit`).
 *
 * @public
 */
export interface AuditEventView {
  /** Monotonic id, usable as a paging cursor. */
  id: string;
  at: string;
  actor: string;
  /** e.g. `service.create`, `reservation.release`, `quota.put`. */
  action: string;
  subjectType: 'service' | 'reservation' | 'approval' | 'quota' | 'batch-job';
  subjectId: string;
  team?: string;
  before?: Record<string, unknown>;
  after?: Record<string, unknown>;
}

/**
 * Query of `GET /api/gpu/audit`; newest first.
 *
 * @public
 */
export interface AuditQuery {
  team?: string;
  subjectId?: string;
  /** 1 to 500; 100 when omitted. */
  limit?: number;
  cursor?: string;
}

/**
 * One page of audit events.
 *
 * @public
 */
export interface AuditEventPageView {
  items: AuditEventView[];
  /** Present when more events match. */
  nextCursor?: string;
}
