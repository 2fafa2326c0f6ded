import { BackstageCredentials } from '@backstage/backend-plugin-api';
import {
  gpuQuotaReadPermission,
  PlatformChecksResponse,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { PlatformChecks } from '../platformChecks';
import { GpuAccess } from './GpuAccess';

/** The platform checks for callers with the platform-wide view (`gpu.quota.read`): they name every team's objects. */
export class AuthorizedPlatformChecks {
  constructor(
    private readonly options: { access: GpuAccess; checks: PlatformChecks },
  ) {}

  async run(
    credentials: BackstageCredentials,
  ): Promise<PlatformChecksResponse> {
    await this.options.access.require(
      credentials,
      gpuQuotaReadPermission,
      'run the platform checks',
    );
    return this.options.checks.run();
  }
}
