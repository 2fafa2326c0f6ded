/**
 * Field manager of every server-side apply of rendered objects.
 *
 * @public
 */
export const FIELD_MANAGER = 'backstage-gpu';

/**
 * Label keys that mark who owns a rendered object. Every object carries `managedBy` (value {@link FIELD_MANAGER})
 * and `scope`; team objects add `team`; a service's objects add `team` and `serviceId`. Teardown and drift
 * detection select by these.
 *
 * @public
 */
export const OWNERSHIP_LABELS = {
  managedBy: 'app.kubernetes.io/managed-by',
  scope: 'gpu.backstage.io/scope',
  team: 'gpu.backstage.io/team',
  serviceId: 'gpu.backstage.io/service-id',
} as const;

/**
 * Which layer a rendered object belongs to, in apply order (`batch`: a team's batch Job, applied after its queue).
 *
 * @public
 */
export type ManifestScope = 'platform' | 'team' | 'service' | 'batch';

/** Ownership labels of a platform, team or service object. */
export function ownershipLabels(
  scope: ManifestScope,
  owner: { team?: string; serviceId?: string } = {},
): Record<string, string> {
  const labels: Record<string, string> = {
    [OWNERSHIP_LABELS.managedBy]: FIELD_MANAGER,
    [OWNERSHIP_LABELS.scope]: scope,
  };
  if (owner.team !== undefined) {
    labels[OWNERSHIP_LABELS.team] = owner.team;
  }
  if (owner.serviceId !== undefined) {
    labels[OWNERSHIP_LABELS.serviceId] = owner.serviceId;
  }
  return labels;
}
