import { LoggerService } from '@backstage/backend-plugin-api';
import { ServiceStatus } from '@gpu-platform/backstage-plugin-gpu-common';
import { GpuStore, ServiceRecord, StoredManifest } from '../database';
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
  /**
   * Whether this replica's reconciler has the service in hand (queued or being worked on): such a service is not
   * interrupted however long it has waited, and is not taken over.
   */
  inHand?: (serviceId: string) => boolean;
}

/** Outcome of {@link InterruptedApplyResumer.resumeInterruptedApplies}. */
export interface ApplyResumeSummary {
  /**
   * Services this call took over, with the status they ended in: interrupted applies claimed and applied again,
   * services left `approved` that were never claimed for applying, and interrupted teardowns.
   */
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
   * Services left `approved` or `deleting` as long are taken over too (see `takeOver`).
   */
  async resumeInterruptedApplies(): Promise<ApplyResumeSummary> {
    const summary: ApplyResumeSummary = { resumed: [], gaveUp: [] };
    if (!this.options.services.hasApplier()) {
      return summary;
    }
    const cutoff = this.now().getTime() - this.resumeAfterMs;
    const stale = (
      await this.options.store.listServices({
        status: ['applying', 'approved', 'deleting'],
      })
    ).filter(
      s =>
        s.mode === 'apply' &&
        Date.parse(s.updatedAt) <= cutoff &&
        !this.options.inHand?.(s.id),
    );
    for (const service of stale) {
      if (service.status !== 'applying') {
        await this.takeOver(service, summary);
        continue;
      }
      const resumes = await this.resumesOf(service.id);
      const expected = {
        expectedStatus: ['applying' as const],
        expectedUpdatedAt: service.updatedAt,
      };
      if (resumes >= this.resumeAttempts) {
        const failed = await compareAndSet(this.options.store, {
          id: service.id,
          status: 'failed',
          reason: 'ApplyInterrupted',
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
        reason: 'Applying',
        statusReason: `Resuming an interrupted apply (resume ${
          resumes + 1
        } of ${this.resumeAttempts}); it had not completed ${Math.round(
          (this.now().getTime() - Date.parse(service.updatedAt)) / 1000,
        )} s after it started`,
        manifests: (await this.options.services.render(
          service,
        )) as StoredManifest[],
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

  /**
   * A service in apply mode that a stopped backend left between two writes: `approved` (created, approved or changed
   * by approval, but never claimed for applying; nothing else moves it on) is claimed and applied, `deleting` (a
   * teardown interrupted after it claimed the service) is claimed and torn down again. Each claim is a
   * compare-and-set on the version read, so one replica takes each; deleting by ownership label again is harmless.
   */
  private async takeOver(
    service: ServiceRecord,
    summary: ApplyResumeSummary,
  ): Promise<void> {
    const { services, store, logger } = this.options;
    const approved = service.status === 'approved';
    const claim = await compareAndSet(store, {
      id: service.id,
      status: approved ? 'applying' : 'deleting',
      reason: approved ? 'Applying' : 'Deleting',
      statusReason: approved
        ? 'Applying an approved service that was never applied (the backend that approved it stopped first)'
        : 'Resuming an interrupted teardown (the backend deleting it stopped first)',
      ...(approved && {
        manifests: (await services.render(service)) as StoredManifest[],
      }),
      expectedStatus: [service.status],
      expectedUpdatedAt: service.updatedAt,
      actor: APPLY_RESUME_ACTOR,
    });
    if (!claim.written) {
      return;
    }
    logger.info(
      approved
        ? 'Applying an approved GPU service that was never applied'
        : 'Resuming an interrupted teardown',
      { serviceId: service.id },
    );
    const after = approved
      ? await services.applyClaimed(claim.service, APPLY_RESUME_ACTOR)
      : await services.teardown(service.id, APPLY_RESUME_ACTOR, {
          inLine: true,
        });
    summary.resumed.push({ id: service.id, status: after.status });
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
