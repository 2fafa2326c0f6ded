import { LoggerService } from '@backstage/backend-plugin-api';
import { ServiceStatus } from '@internal/backstage-plugin-gpu-common';
import { GpuStore, StoredManifest } from '../database';
import { compareAndSet } from './serviceStatusWrite';
import { ServiceManager } from './ServiceManager';

/** Actor of resumed (and given up) interrupted applies (audit trail). */
export const APPLY_RESUME_ACTOR = 'system:gpu-apply-resume';

/** Collaborators and settings of {@link InterruptedApplyResumer}. */
export interface InterruptedApplyResumerOptions {
  /** Applies what this resumer claims ({@link ServiceManager.applyClaimed}). */
  services: ServiceManager;
  store: GpuStore;
  logger: LoggerService;
  /** An `applying` service not written for this long was interrupted and is resumed; 2 minutes when omitted. */
  resumeAfterMs?: number;
  /** Resumes of one interrupted apply before the service becomes `failed`; 3 when omitted. */
  resumeAttempts?: number;
  /** Clock (tests). */
  now?: () => Date;
}

/** Outcome of {@link InterruptedApplyResumer.resumeInterruptedApplies}. */
export interface ApplyResumeSummary {
  /** Services this call claimed and applied again, with the status they ended in. */
  resumed: { id: string; status: ServiceStatus }[];
  /** Services interrupted too often, now `failed`. */
  gaveUp: string[];
}

/**
 * Resumes applies that were interrupted (left `applying` by a backend that stopped or lost the cluster), or gives
 * them up as `failed` after too many resumes (the scheduled `gpu-apply-resume`).
 */
export class InterruptedApplyResumer {
  private readonly resumeAfterMs: number;
  private readonly resumeAttempts: number;
  private readonly now: () => Date;

  constructor(private readonly options: InterruptedApplyResumerOptions) {
    this.resumeAfterMs = options.resumeAfterMs ?? 120_000;
    this.resumeAttempts = options.resumeAttempts ?? 3;
    this.now = options.now ?? (() => new Date());
  }

  /**
   * Services left `applying` for longer than `resumeAfterMs` (the backend applying them stopped, or lost the
   * cluster, mid-apply) are claimed with a compare-and-set, so exactly one replica takes each, and applied again:
   * server-side apply is idempotent, objects already there stay unchanged. After `resumeAttempts` resumes of the
   * same apply the service becomes `failed` with the reason, quota held; `POST /services/:id/retry` applies it.
   */
  async resumeInterruptedApplies(): Promise<ApplyResumeSummary> {
    const summary: ApplyResumeSummary = { resumed: [], gaveUp: [] };
    if (!this.options.services.hasApplier()) {
      return summary;
    }
    const cutoff = this.now().getTime() - this.resumeAfterMs;
    const stale = (
      await this.options.store.listServices({ status: 'applying' })
    ).filter(s => s.mode === 'apply' && Date.parse(s.updatedAt) <= cutoff);
    for (const service of stale) {
      const resumes = await this.resumesOf(service.id);
      const expected = {
        expectedStatus: ['applying' as const],
        expectedUpdatedAt: service.updatedAt,
      };
      if (resumes >= this.resumeAttempts) {
        const failed = await compareAndSet(this.options.store, {
          id: service.id,
          status: 'failed',
          statusReason:
            `The apply was interrupted ${
              resumes + 1
            } times before it completed (the backend applying it ` +
            `stopped or lost the cluster); quota stays reserved; retry the apply or delete the service`,
          ...expected,
          actor: APPLY_RESUME_ACTOR,
        });
        if (failed.written) summary.gaveUp.push(service.id);
        continue;
      }
      const claim = await compareAndSet(this.options.store, {
        id: service.id,
        status: 'applying',
        statusReason: `Resuming an interrupted apply (resume ${
          resumes + 1
        } of ${this.resumeAttempts}); it had not completed ${Math.round(
          (this.now().getTime() - Date.parse(service.updatedAt)) / 1000,
        )} s after it started`,
        manifests: this.options.services.render(service) as StoredManifest[],
        ...expected,
        actor: APPLY_RESUME_ACTOR,
      });
      if (!claim.written) {
        continue;
      }
      this.options.logger.info('Resuming an interrupted apply', {
        serviceId: service.id,
        resume: resumes + 1,
      });
      const after = await this.options.services.applyClaimed(
        claim.service,
        APPLY_RESUME_ACTOR,
      );
      summary.resumed.push({ id: service.id, status: after.status });
    }
    return summary;
  }

  /** Consecutive resumes of the current apply: the newest status changes that went from `applying` to `applying`. */
  private async resumesOf(id: string): Promise<number> {
    const { items } = await this.options.store.listAuditEvents({
      subjectId: id,
      action: 'service.status',
      limit: this.resumeAttempts + 1,
    });
    let resumes = 0;
    for (const event of items) {
      if (
        event.before?.status !== 'applying' ||
        event.after?.status !== 'applying'
      ) {
        break;
      }
      resumes += 1;
    }
    return resumes;
  }
}
