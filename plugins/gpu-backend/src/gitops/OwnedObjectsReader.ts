import {
  FIELD_MANAGER,
  OWNERSHIP_LABELS,
} from '@gpu-platform/backstage-plugin-gpu-node';
import { KubernetesObjectClient, OwnedKind } from '../cluster/types';

/**
 * Reads, never writes, a GitOps cluster with its read-only credential: how many of a service's objects (those with
 * its ownership labels, which its rendered manifests carry whoever applies them) are still there.
 */
export class OwnedObjectsReader {
  constructor(
    readonly cluster: string,
    private readonly client: Pick<KubernetesObjectClient, 'list'>,
  ) {}

  /** The service's objects of these kinds still in the cluster (list calls only). */
  async remaining(
    serviceId: string,
    kinds: OwnedKind[],
  ): Promise<Array<OwnedKind & { name: string }>> {
    const labelSelector = `${OWNERSHIP_LABELS.serviceId}=${serviceId},${OWNERSHIP_LABELS.managedBy}=${FIELD_MANAGER}`;
    const found: Array<OwnedKind & { name: string }> = [];
    for (const kind of kinds) {
      const { items } = await this.client.list({ ...kind, labelSelector });
      for (const item of items) {
        found.push({
          ...kind,
          name: item.metadata?.name ?? '',
        });
      }
    }
    return found;
  }
}
