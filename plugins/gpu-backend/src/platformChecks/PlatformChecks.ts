import {
  PlatformChecksResponse,
  PlatformFinding,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { ClusterTarget } from '../cluster';
import { GpuStore, ServiceStatus } from '../database';
import { LiveClusterCheck } from './LiveClusterCheck';

/** Statuses of a service whose pods the cluster runs (or is starting). */
const RUNNING: ServiceStatus[] = ['starting', 'ready'];

/** Options of {@link PlatformChecks}. */
export interface PlatformChecksOptions {
  /** The findings of the `gpu` config (`checkPlatformConfig`), fixed for the process. */
  configFindings: PlatformFinding[];
  /** Every configured cluster, in `gpu.clusters` order. */
  clusters: ClusterTarget[];
  /** The live check of each `apply` cluster, by name. */
  live: LiveClusterCheck[];
  store: Pick<GpuStore, 'listServices'>;
  /** How long one reading answers every request; default {@link PLATFORM_CHECKS_MAX_AGE_MS}. */
  maxAgeMs?: number;
  now?: () => Date;
}

/**
 * How long one reading of the clusters answers the requests that follow: a governance page opened by several people
 * at once, or reloaded, lists the clusters' objects once. Short, so a fix shows after a reload or two.
 */
export const PLATFORM_CHECKS_MAX_AGE_MS = 10_000;

/**
 * The platform checks: the config's findings, then each `apply` cluster's, read live (in parallel). `gitops` and
 * `dry-run` clusters are not read; the answer lists them with `live: false`. One reading answers the requests of the
 * next `maxAgeMs` (its `checkedAt` says when it was taken), requests that arrive while it is under way included; a
 * reading that failed is not kept.
 */
export class PlatformChecks {
  private readonly now: () => Date;
  private readonly maxAgeMs: number;
  private last?: { takenAt: number; result: Promise<PlatformChecksResponse> };

  constructor(private readonly options: PlatformChecksOptions) {
    this.now = options.now ?? (() => new Date());
    this.maxAgeMs = options.maxAgeMs ?? PLATFORM_CHECKS_MAX_AGE_MS;
  }

  run(): Promise<PlatformChecksResponse> {
    const now = this.now().getTime();
    if (this.last && now - this.last.takenAt < this.maxAgeMs) {
      return this.last.result;
    }
    const reading = { takenAt: now, result: this.read() };
    this.last = reading;
    reading.result.catch(() => {
      if (this.last === reading) this.last = undefined;
    });
    return reading.result;
  }

  private async read(): Promise<PlatformChecksResponse> {
    const checkedAt = this.now().toISOString();
    const running = await this.options.store.listServices({ status: RUNNING });
    const liveFindings = await Promise.all(
      this.options.live.map(check =>
        check.check(
          running.filter(
            s => s.mode === 'apply' && s.cluster === check.cluster,
          ),
        ),
      ),
    );
    const live = new Set(this.options.live.map(c => c.cluster));
    return {
      checkedAt,
      clusters: this.options.clusters
        .filter((c): c is ClusterTarget & { name: string } => !!c.name)
        .map(c => ({ name: c.name, mode: c.mode, live: live.has(c.name) })),
      findings: [...this.options.configFindings, ...liveFindings.flat()],
    };
  }
}
