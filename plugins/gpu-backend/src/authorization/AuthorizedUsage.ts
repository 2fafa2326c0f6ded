import { BackstageCredentials } from '@backstage/backend-plugin-api';
import {
  gpuQuotaReadPermission,
  Overview,
  ServiceCost,
  ServiceUsage,
  TeamCost,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { UsageService } from '../usage/UsageService';
import { AuthorizedGovernance } from './AuthorizedGovernance';
import { AuthorizedServices } from './AuthorizedServices';
import { GpuAccess } from './GpuAccess';

/**
 * Usage and cost as a caller may read them: a service's with `gpu.service.read` on it, a team's with
 * `gpu.service.read` on the team, the all-teams overview with `gpu.quota.read`.
 */
export class AuthorizedUsage {
  constructor(
    private readonly options: {
      access: GpuAccess;
      usage: UsageService;
      services: AuthorizedServices;
      governance: AuthorizedGovernance;
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
  ): Promise<Overview> {
    await this.options.access.require(
      credentials,
      gpuQuotaReadPermission,
      "read every team's GPU costs",
    );
    return this.options.usage.overview(window);
  }
}
