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
  now?: () => Date;
}

/**
 * The platform checks: the config's findings, then each `apply` cluster's, read live (in parallel). `gitops` and
 * `dry-run` clusters are not read; the answer lists them with `live: false`.
 */
export class PlatformChecks {
  private readonly now: () => Date;

  constructor(private readonly options: PlatformChecksOptions) {
    this.now = options.now ?? (() => new Date());
  }

  async run(): Promise<PlatformChecksResponse> {
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
