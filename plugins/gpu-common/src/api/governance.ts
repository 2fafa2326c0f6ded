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
 * One approval as `GET /api/gpu/approvals` lists it: the approval with the service it decides.
 *
 * @public
 */
export interface ApprovalListItem extends ApprovalView {
  /** The service the approval creates or changes; absent when the service is gone. */
  service?: GpuServiceView;
}

/**
 * Direction of a sorted list: `asc` (oldest, A to Z, cheapest first) or `desc`.
 *
 * @public
 */
export type SortOrder = 'asc' | 'desc';

/**
 * What `GET /api/gpu/approvals` sorts by: when it was requested, the team, the service's name, or the monthly cost
 * of what the approval asks to hold.
 *
 * @public
 */
export const APPROVAL_ORDER_BY = [
  'requestedAt',
  'team',
  'service',
  'monthlyCost',
] as const;

/**
 * One of {@link APPROVAL_ORDER_BY}.
 *
 * @public
 */
export type ApprovalOrderBy = (typeof APPROVAL_ORDER_BY)[number];

/**
 * Query of `GET /api/gpu/approvals`; oldest first (the queue's order) unless `orderBy` or `order` say otherwise.
 *
 * @public
 */
export interface ApprovalQuery {
  state?: ApprovalView['state'];
  team?: string;
  /** Part of the service or team name, or of the requester, case-insensitive. */
  search?: string;
  /** `requestedAt` when omitted; ties go by approval id. */
  orderBy?: ApprovalOrderBy;
  /** `asc` when omitted. */
  order?: SortOrder;
  /** 1 to 200; 50 when omitted. */
  limit?: number;
  /** `nextCursor` of the previous page, read with the same `orderBy` and `order`. */
  cursor?: string;
}

/**
 * One page of approvals.
 *
 * @public
 */
export interface ApprovalPageView {
  items: ApprovalListItem[];
  /** Present when more approvals match. */
  nextCursor?: string;
  /** Approvals matching the filters, on every page. */
  totalCount: number;
}

/**
 * The service an audit event is about (its subject, or the service of the reservation or approval it is about).
 *
 * @public
 */
export interface AuditServiceRef {
  id: string;
  name: string;
  namespace: string;
  /** The catalog entity the service is bound to. */
  entityRef?: string;
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
  /** The service the event is about, when there is one and it still exists. */
  service?: AuditServiceRef;
}

/**
 * Query of `GET /api/gpu/audit`; newest first.
 *
 * @public
 */
export interface AuditQuery {
  team?: string;
  subjectId?: string;
  /**
   * Free text, 1 to 100 characters, case-insensitive, searched on the server: events whose actor, action, team or
   * subject id contains it, or about a service (its own, its reservations' and approvals' events) whose name does.
   */
  search?: string;
  /** `desc` (newest first) when omitted. */
  order?: SortOrder;
  /** 1 to 500; 100 when omitted. */
  limit?: number;
  /** `nextCursor` of the previous page, read with the same `order`. */
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
  /** Events matching the filters, on every page. */
  totalCount: number;
}
