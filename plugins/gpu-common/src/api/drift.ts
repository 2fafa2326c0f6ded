import { ClusterMode } from './types';

/**
 * One Kueue object that differs from what the platform and the stored quotas render.
 *
 * @public
 */
export interface KueueObjectDrift {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  /** `missing` from the cluster, or present with `changed` fields. */
  state: 'missing' | 'changed';
  /** For `changed`: each field we manage whose live value differs. */
  fields?: { path: string; expected: unknown; actual?: unknown }[];
}

/**
 * The last Kueue reconciliation of one cluster (`GET /api/gpu/clusters/drift`).
 *
 * @public
 */
export interface ClusterDriftReport {
  cluster: string;
  mode: ClusterMode;
  /** When the reconciler last ran for the cluster. */
  checkedAt: string;
  /** Kueue objects rendered from the platform config and the stored team quotas. */
  objects: number;
  /** Whether the cluster was compared: only `apply` clusters are read. */
  checked: boolean;
  /** Whether the rendered objects were server-side applied after the comparison. */
  applied: boolean;
  /** No object was missing or changed before the apply; absent when not checked. */
  inSync?: boolean;
  /** The objects that had drifted before the apply. */
  drifted: KueueObjectDrift[];
  /** Why the comparison or the apply failed, or why the cluster was not checked. */
  message?: string;
}
