import {
  AuditEventView,
  formatUsd,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { formatGpuEquivalents } from '../common';
import { describeAuditChange } from './describeAuditChange';

/** An audit event as a sentence around its subject: `lead` + `subject` (a link when `entityRef`) + `tail`. */
export interface AuditSentence {
  lead: string;
  subject: string;
  /** The catalog entity of the subject, to link to. */
  entityRef?: string;
  tail: string;
}

type Fields = Record<string, unknown>;

/** The gpu backend's own actors (its scheduled tasks and its config), in words. */
const SYSTEM_ACTORS: Record<string, string> = {
  'system:gpu-status-refresh': 'the status refresh',
  'system:gpu-apply-resume': 'the resume of interrupted applies',
  'system:gpu-confirmation-expiry': 'the expiry of unconfirmed services',
  'system:gpu-drift-repair': 'the drift repair',
  'system:gpu-batch-release': 'the release of finished batch jobs',
  'system:gpu-cluster-move': 'the move between clusters',
  'system:gpu-gitops-follow': 'the follow-up of GitOps pull requests',
  'config:app-config': 'the platform config (app-config.yaml)',
};

/**
 * `user:default/alice` as `alice`; the backend's own actors in words (`system:gpu-status-refresh` as "the status
 * refresh", `config:app-config` as "the platform config (app-config.yaml)", a task not listed here as "the gpu backend
 * (its name)"); any other (a plugin, a service) as it is.
 */
export function actorName(actor: string): string {
  const named = SYSTEM_ACTORS[actor];
  if (named) return named;
  // A task of the backend this map does not know yet: its name in words, never the raw key.
  const task = /^system:gpu-(.+)$/.exec(actor);
  if (task) return `the gpu backend (${task[1].replace(/-/g, ' ')})`;
  return actor.replace(/^user:default\//, '');
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value ? value : undefined;
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}

function equivalents(value: number): string {
  return `${formatGpuEquivalents(value)} GPU-equivalent${
    value === 1 ? '' : 's'
  }`;
}

/** The fields of a service that a change of it may touch, flat, for `describeAuditChange`. */
function shapeOf(service: Fields | undefined): Fields | undefined {
  if (!service) return undefined;
  const request = (service.request ?? {}) as Fields;
  const placement = (service.placement ?? {}) as Fields;
  return {
    model: request.model,
    replicas: request.replicas,
    tier: placement.tier,
    migProfile: placement.migProfile,
    pool: placement.pool,
  };
}

/**
 * The audit event in words, naming who acted, the service (or batch job, or team) by name, and what changed, e.g.
 * `alice approved the request for ` **summariser** ` (team ml-platform): 1 GPU-equivalent over quota was granted.`
 */
export function describeAuditEvent(event: AuditEventView): AuditSentence {
  const who = actorName(event.actor);
  const before = event.before as Fields | undefined;
  const after = event.after as Fields | undefined;
  const latest = after ?? before ?? {};
  const team = event.team ? ` (team ${event.team})` : '';
  const service = {
    subject:
      event.service?.name ??
      (event.subjectType === 'service' ? text(latest.name) : undefined) ??
      'a deleted service',
    ...(event.service?.entityRef ? { entityRef: event.service.entityRef } : {}),
  };

  switch (event.action) {
    case 'service.create':
      return {
        lead: `${who} created service `,
        ...service,
        tail: `${team}, status ${text(after?.status) ?? 'unknown'}.`,
      };
    case 'service.status': {
      const reason = text(after?.statusReason);
      return {
        lead: `${who} moved `,
        ...service,
        tail: `${team} from ${text(before?.status) ?? 'nothing'} to ${
          text(after?.status) ?? 'unknown'
        }${reason ? `: ${reason}` : ''}.`,
      };
    }
    case 'service.change': {
      const change = describeAuditChange({
        ...event,
        before: shapeOf(before),
        after: shapeOf(after),
      });
      return {
        lead: `${who} changed `,
        ...service,
        tail: `${team}${
          change && change !== 'no change' ? `: ${change}` : ''
        }.`,
      };
    }
    case 'reservation.hold':
    case 'reservation.request':
    case 'reservation.release': {
      const amount = num(latest.gpuEquivalents);
      const cost = num(latest.monthlyCostMicros);
      const what = `${amount !== undefined ? equivalents(amount) : 'quota'}${
        text(latest.pool) ? ` on ${text(latest.pool)}` : ''
      }${cost !== undefined ? ` (${formatUsd(cost)} a month)` : ''}`;
      const verb = {
        'reservation.hold': 'held',
        'reservation.request': 'asked for',
        'reservation.release': 'released',
      }[event.action];
      return {
        lead: `${who} ${verb} ${what} for `,
        ...service,
        tail: `${team}.`,
      };
    }
    case 'approval.request': {
      const reasons = Array.isArray(after?.reasons)
        ? (after!.reasons as Fields[])
            .map(r => text(r.message))
            .filter(Boolean)
            .join('; ')
        : '';
      return {
        lead: `${who} asked for approval of `,
        ...service,
        tail: `${team}${reasons ? `: ${reasons}` : ''}.`,
      };
    }
    case 'approval.approve':
    case 'approval.reject': {
      const comment = text(after?.comment);
      const overage = after?.overage as Fields | undefined;
      const granted =
        event.action === 'approval.approve' && overage?.overQuota === true
          ? ', beyond quota or budget'
          : '';
      return {
        lead: `${who} ${
          event.action === 'approval.approve' ? 'approved' : 'rejected'
        } the request for `,
        ...service,
        tail: `${team}${granted}${comment ? `: "${comment}"` : ''}.`,
      };
    }
    case 'quota.put': {
      const pools = Object.entries((after?.pools ?? {}) as Fields)
        .map(([pool, n]) => `${pool} ${formatGpuEquivalents(Number(n))}`)
        .join(', ');
      const budget = num(after?.monthlyBudgetMicros);
      return {
        lead: `${who} set the quota of team `,
        subject: event.subjectId,
        tail: `: ${pools || 'no pool'}${
          budget !== undefined ? `, budget ${formatUsd(budget)} a month` : ''
        }.`,
      };
    }
    case 'batch-job.submit':
      return {
        lead: `${who} submitted batch job `,
        subject: text(after?.name) ?? event.subjectId,
        tail: `${team}${
          text(after?.pool) ? ` on pool ${text(after?.pool)}` : ''
        }${text(after?.mode) ? ` (${text(after?.mode)})` : ''}.`,
      };
    default: {
      const change = describeAuditChange(event);
      return {
        lead: `${who}: ${event.action} of ${event.subjectType} `,
        subject:
          event.subjectType === 'service' ||
          event.subjectType === 'reservation' ||
          event.subjectType === 'approval'
            ? service.subject
            : event.subjectId,
        ...(service.entityRef ? { entityRef: service.entityRef } : {}),
        tail: `${team}${change ? `: ${change}` : ''}.`,
      };
    }
  }
}
