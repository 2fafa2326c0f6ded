import type { KubernetesObject } from '@kubernetes/client-node';
import {
  allowanceFromConfig,
  GpuDomainError,
  Platform,
  PlatformOperations,
  TeamAllowance,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { renderDevicePluginConfigMap } from './devicePlugin/renderDevicePluginConfigMap';
import { poolNodeConfigs } from './devicePlugin/poolNodeConfigs';
import { renderMigConfigMap } from './devicePlugin/renderMigConfigMap';
import { checkFlavorsDistinguishable } from './kueue/checkFlavorsDistinguishable';
import { migQuotaPlan } from './kueue/migQuotaPlan';
import { renderClusterQueue } from './kueue/renderClusterQueue';
import { renderCohort } from './kueue/renderCohort';
import { renderResourceFlavor } from './kueue/renderResourceFlavor';
import { renderWorkloadPriorityClasses } from './kueue/renderWorkloadPriorityClasses';
import { renderNodePools } from './karpenter/renderNodePools';
import { renderPrometheusRules } from './alerts/renderPrometheusRules';
import { sortForApply } from './sortForApply';
import { stableObject } from './stableObject';

/**
 * Options of {@link renderPlatformManifests}.
 *
 * @public
 */
export interface PlatformRenderOptions {
  /** Namespace of the GPU Operator, where the device-plugin and MIG ConfigMaps go. Default `gpu-operator`. */
  gpuOperatorNamespace?: string;
  /** Name of the device-plugin ConfigMap (ClusterPolicy `spec.devicePlugin.config.name`). Default `device-plugin-config`. */
  devicePluginConfigMapName?: string;
  /** Name of the MIG Manager ConfigMap (ClusterPolicy `spec.migManager.config.name`). Default `custom-mig-config`. */
  migConfigMapName?: string;
  /**
   * Name of the ResourceFlavor (no node labels) under which each ClusterQueue also covers `cpu` and `memory`, which
   * Kueue needs before it admits a pod requesting them. `false` leaves them out, for clusters whose Kueue
   * configuration excludes them (`resources.excludeResourcePrefixes`). Default `gpu-host`.
   */
  hostResourceFlavor?: string | false;
  /**
   * Teams' allowances that replace what app-config gives them (the store's quotas); a team of the platform without
   * one gets `allowanceFromConfig`. Allowances of teams the platform does not have are ignored.
   */
  allowances?: readonly TeamAllowance[];
  /**
   * Karpenter and alert settings (`readPlatformOperations`): a NodePool per Karpenter-managed pool and the
   * PrometheusRules of the DCGM and vLLM alerts. Absent: neither.
   */
  operations?: PlatformOperations;
}

/** Defaults of {@link PlatformRenderOptions}. */
const DEFAULTS = {
  gpuOperatorNamespace: 'gpu-operator',
  devicePluginConfigMapName: 'device-plugin-config',
  migConfigMapName: 'custom-mig-config',
  hostResourceFlavor: 'gpu-host',
} as const;

/**
 * Everything the platform team applies once per cluster, in apply order: the NVIDIA device-plugin ConfigMap (and the
 * MIG Manager ConfigMap when a pool uses MIG), one Kueue ResourceFlavor per pool (plus the host flavor), the Cohort,
 * one WorkloadPriorityClass per environment priority class, and one ClusterQueue per team; with `options.operations`,
 * also a Karpenter NodePool per Karpenter-managed pool and the alert PrometheusRules (kinds the cluster needs Karpenter's
 * and the Prometheus operator's CRDs for; they sort last).
 *
 * @remarks
 * Kueue objects use `platform.kueue.apiVersion`. A team's ClusterQueue admits from its namespaces and has, per pool
 * it has quota on, from the team's allowance in GPU units (1/5040 GPU): floor(units x per GPU / 5040) of
 * `nvidia.com/gpu` for whole GPUs, of `nvidia.com/gpu` or `nvidia.com/gpu.shared` (R per GPU) for MPS and
 * time-slicing; for MIG, the units themselves as `gpu.backstage.io/gpu-units` (Kueue's resource transformations,
 * `renderResourceTransformations`, turn each `nvidia.com/mig-<profile>` request into the slice's weight), or, when
 * `kueue.migQuota` is `profile-counts` or two MIG pools weigh a profile differently, floor(units / weight) per
 * `nvidia.com/mig-<profile>`; the ClusterQueue's `gpu.backstage.io/mig-quota` annotation says which. Pools whose resources overlap share a resource group, and every flavor of a
 * group lists every covered resource (0 where the pool has none). A pool's taints go on its flavor once per key and
 * effect (Kueue rejects a flavor listing one twice); a repeated taint is dropped. Pure and deterministic.
 *
 * @throws GpuDomainError `INVALID_CONFIG` for what cannot be rendered, e.g. a pool named like the host flavor, pools
 *   Kueue cannot tell apart, more than 8 node labels or taints on a pool, two taints of a pool with the same key and
 *   effect but different values.
 * @public
 */
export function renderPlatformManifests(
  platform: Platform,
  options: PlatformRenderOptions = {},
): KubernetesObject[] {
  const settings = { ...DEFAULTS, ...stripUndefined(options) };
  const hostFlavor = settings.hostResourceFlavor;
  if (hostFlavor !== false && platform.pools.some(p => p.name === hostFlavor)) {
    throw new GpuDomainError(
      'INVALID_CONFIG',
      `Pool name ${hostFlavor} is reserved for the host-resources ResourceFlavor; rename the pool or set another hostResourceFlavor`,
    );
  }
  checkFlavorsDistinguishable(platform);
  const apiVersion = platform.kueue.apiVersion;
  const nodeConfigs = poolNodeConfigs(platform);
  const objects: KubernetesObject[] = [
    renderDevicePluginConfigMap(
      nodeConfigs,
      settings.devicePluginConfigMapName,
      settings.gpuOperatorNamespace,
    ),
  ];
  const migConfigMap = renderMigConfigMap(
    nodeConfigs,
    settings.migConfigMapName,
    settings.gpuOperatorNamespace,
  );
  if (migConfigMap) {
    objects.push(migConfigMap);
  }
  objects.push(
    ...platform.pools.map(pool => renderResourceFlavor(pool, apiVersion)),
  );
  if (hostFlavor !== false) {
    objects.push(
      renderResourceFlavor(
        { name: hostFlavor, nodeLabels: {}, nodeTaints: [] },
        apiVersion,
      ),
    );
  }
  objects.push(renderCohort(platform));
  objects.push(...renderWorkloadPriorityClasses(platform));
  const plan = migQuotaPlan(platform);
  const stored = new Map(
    (options.allowances ?? []).map(allowance => [allowance.team, allowance]),
  );
  objects.push(
    ...platform.teams.map(team =>
      renderClusterQueue(
        platform,
        team,
        stored.get(team.name) ?? allowanceFromConfig(team),
        hostFlavor,
        plan,
      ),
    ),
  );
  if (options.operations) {
    objects.push(...renderNodePools(platform, options.operations));
    if (options.operations.alerts) {
      objects.push(
        ...renderPrometheusRules(platform, options.operations.alerts),
      );
    }
  }
  return sortForApply(objects.map(stableObject));
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(value).filter(([, v]) => v !== undefined),
  ) as Partial<T>;
}
