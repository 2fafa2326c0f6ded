import { BackstageCredentials } from '@backstage/backend-plugin-api';
import { ServiceUnavailableError } from '@backstage/errors';
import {
  CatalogGroup,
  groupHierarchy,
  gpuQuotaReadPermission,
  Overview,
  OverviewServicePage,
  OverviewServiceQuery,
  OverviewSummary,
  ServiceCost,
  ServiceUsage,
  TeamCost,
} from '@gpu-platform/backstage-plugin-gpu-common';
import type { CostExport } from '../usage/export/focusRows';
import { UsageService } from '../usage/UsageService';
import {
  overviewServicePage,
  OverviewSnapshots,
  overviewSummary,
} from '../usage/overviewPages';
import { AuthorizedGovernance } from './AuthorizedGovernance';
import { AuthorizedServices } from './AuthorizedServices';
import { GpuAccess } from './GpuAccess';

/** The catalog's Group entities, read with the caller's credentials. */
export type GroupSource = (
  credentials: BackstageCredentials,
) => Promise<CatalogGroup[]>;

/**
 * Usage and cost as a caller may read them: a service's with `gpu.service.read` on it, a team's with
 * `gpu.service.read` on the team, the all-teams overview and the cost export with `gpu.quota.read`.
 */
export class AuthorizedUsage {
  /** The overviews the leaderboards page through (`GET /overview/services`). */
  private readonly snapshots = new OverviewSnapshots();

  constructor(
    private readonly options: {
      access: GpuAccess;
      usage: UsageService;
      services: AuthorizedServices;
      governance: AuthorizedGovernance;
      /** The catalog's groups for roll-ups; without it every team stands alone. */
      groups?: GroupSource;
    },
  ) {}

  async serviceUsage(
    credentials: BackstageCredentials,
    id: string,
    window: string | undefined,
  ): Promise<ServiceUsage> {
    await this.options.services.requireRead(credentials, id);
    return this.options.usage.serviceUsage(id, window);
  }

  async serviceCost(
    credentials: BackstageCredentials,
    id: string,
    window: string | undefined,
  ): Promise<ServiceCost> {
    await this.options.services.requireRead(credentials, id);
    return this.options.usage.serviceCost(id, window);
  }

  async teamCost(
    credentials: BackstageCredentials,
    team: string,
    window: string | undefined,
  ): Promise<TeamCost> {
    await this.options.governance.requireTeam(
      credentials,
      team,
      'read the costs of',
    );
    return this.options.usage.teamCost(team, window);
  }

  async overview(
    credentials: BackstageCredentials,
    window: string | undefined,
    cluster?: string,
  ): Promise<Overview> {
    await this.requireOverview(credentials);
    return this.options.usage.overview(window, cluster);
  }

  /** `GET /overview`: the totals and the first `top` rows of each leaderboard ({@link overviewSummary}). */
  async overviewSummary(
    credentials: BackstageCredentials,
    window: string | undefined,
    cluster: string | undefined,
    top: number | undefined,
  ): Promise<OverviewSummary> {
    await this.requireOverview(credentials);
    return overviewSummary(
      await this.snapshots.fresh(JSON.stringify([window, cluster]), () =>
        this.options.usage.overview(window, cluster),
      ),
      top,
    );
  }

  /** `GET /overview/services`: one page of a leaderboard ({@link overviewServicePage}). */
  async overviewServices(
    credentials: BackstageCredentials,
    window: string | undefined,
    cluster: string | undefined,
    query: OverviewServiceQuery,
  ): Promise<OverviewServicePage> {
    await this.requireOverview(credentials);
    return overviewServicePage(
      await this.snapshots.recent(JSON.stringify([window, cluster]), () =>
        this.options.usage.overview(window, cluster),
      ),
      query,
    );
  }

  private requireOverview(credentials: BackstageCredentials): Promise<void> {
    return this.options.access.require(
      credentials,
      gpuQuotaReadPermission,
      "read every team's GPU costs",
    );
  }

  /** The FOCUS rows of every service and pool, tagged with each team's groups as the caller sees the catalog. */
  async costExport(
    credentials: BackstageCredentials,
    firstDay: string | undefined,
    lastDay: string | undefined,
  ): Promise<CostExport> {
    await this.options.access.require(
      credentials,
      gpuQuotaReadPermission,
      "export every team's GPU costs",
    );
    const { groups } = this.options;
    return this.options.usage.costExport(firstDay, lastDay, async () => {
      if (!groups) return groupHierarchy([]);
      try {
        return groupHierarchy(await groups(credentials));
      } catch (error) {
        throw new ServiceUnavailableError(
          `Could not read the catalog's groups to roll costs up: ${
            (error as Error).message
          }`,
        );
      }
    });
  }
}
