import { BackstageCredentials } from '@backstage/backend-plugin-api';
import { InputError } from '@backstage/errors';
import {
  gpuQuotaReadPermission,
  Platform,
  PlatformManifestsResponse,
  PlatformOperations,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { ClusterTarget } from '../cluster';
import { GpuStore } from '../database';
import { platformManifestFiles } from '../reconciler/platformManifestFiles';
import { renderPlatformObjects } from '../reconciler/renderPlatformObjects';
import { GpuAccess } from './GpuAccess';

/**
 * The platform objects of a cluster Backstage does not apply to (`gitops` or `dry-run` mode), as files for the
 * platform's GitOps repository: the same set the reconciler applies to `apply` clusters, rendered from the platform
 * config, its operations settings and the stored team quotas. Platform-wide, so it needs `gpu.quota.read`.
 */
export class AuthorizedPlatformManifests {
  constructor(
    private readonly options: {
      access: GpuAccess;
      platform: Platform;
      operations: PlatformOperations;
      store: GpuStore;
      clusters: ClusterTarget[];
    },
  ) {}

  async render(
    credentials: BackstageCredentials,
    clusterName: string,
  ): Promise<PlatformManifestsResponse> {
    const { access, platform, operations, store } = this.options;
    await access.require(
      credentials,
      gpuQuotaReadPermission,
      'read the platform manifests',
    );
    const cluster = this.cluster(clusterName);
    const objects = renderPlatformObjects(
      platform,
      await store.listAllowances(),
      operations,
    );
    return {
      cluster: clusterName,
      mode: cluster.mode,
      ...platformManifestFiles(objects, operations),
    };
  }

  private cluster(name: string): ClusterTarget {
    const named = this.options.clusters.filter(c => c.name);
    const cluster = named.find(c => c.name === name);
    if (!cluster) {
      throw new InputError(
        named.length
          ? `Unknown cluster '${name}'; configured clusters are ${named
              .map(c => c.name)
              .join(', ')}`
          : `Unknown cluster '${name}'; no cluster is configured`,
      );
    }
    if (cluster.mode === 'apply') {
      throw new InputError(
        `Cluster '${name}' is in apply mode: Backstage applies its platform objects itself, so they are not exported for GitOps`,
      );
    }
    return cluster;
  }
}
