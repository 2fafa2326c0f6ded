import type { KubernetesObject } from '@kubernetes/client-node';
import {
  Placement,
  Platform,
  ServiceRequest,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { renderAutoscaler } from './service/renderAutoscaler';
import { renderDeployment } from './service/renderDeployment';
import { renderLatencyBudgetRule } from './service/renderLatencyBudgetRule';
import { renderModelCacheClaim } from './service/renderModelCacheClaim';
import { renderPodDisruptionBudget } from './service/renderPodDisruptionBudget';
import { renderPodMonitor } from './service/renderPodMonitor';
import { renderResourceClaimTemplate } from './service/renderResourceClaimTemplate';
import { renderService } from './service/renderService';
import { resolveServiceContext } from './service/resolveServiceContext';
import { ServiceRenderOptions } from './service/types';
import { sortForApply } from './sortForApply';
import { stableObject } from './stableObject';

/**
 * The objects of one GPU model service, in apply order: the model-cache PersistentVolumeClaim (unless an existing
 * claim is used), the ClusterIP Service, on a DRA pool the ResourceClaimTemplate each pod's GPU claim is made from,
 * the Deployment (vLLM or Ollama, the slice's GPU resource, the pool's node
 * selector and tolerations, Kueue queue and priority labels), a PodDisruptionBudget when the environment asks for
 * one (`maxUnavailable`, so a single replica never blocks a drain), a KEDA ScaledObject (or, to scale to zero behind
 * KEDA's HTTP add-on, an HTTPScaledObject) or HPA when the request autoscales, a PodMonitor when the options ask
 * for one, and a PrometheusRule with the latency budget alert of a vLLM service that states a budget when the
 * options carry the platform's alert settings. `options` carries the effective `gpu.serviceDefaults` of the service's environment and pool.
 *
 * @remarks
 * The placement must name a slice the pool offers. Policy (allowed tiers, quota, budget) is not checked here: an
 * approved exception renders like any other request. Pure and deterministic: the same input always gives the same
 * objects with the same key order.
 *
 * @throws GpuDomainError for what cannot be rendered: an unknown team, model, environment or pool; a placement the
 *   pool does not offer; a namespace outside the team's; names that are not DNS-1123; out-of-range numbers;
 *   autoscaling an Ollama service; HPA with `minReplicas` 0; `minReplicas` 0 without a wake trigger; two taints of the pool with the same key and effect but
 *   different values.
 * @public
 */
export function renderServiceManifests(
  platform: Platform,
  request: ServiceRequest,
  placement: Placement,
  options: ServiceRenderOptions,
): KubernetesObject[] {
  const context = resolveServiceContext(platform, request, placement, options);
  const objects: Array<KubernetesObject | undefined> = [
    renderModelCacheClaim(context),
    renderService(context),
    renderResourceClaimTemplate(context),
    renderDeployment(context),
    renderPodDisruptionBudget(context),
    renderAutoscaler(context),
    renderPodMonitor(context),
    renderLatencyBudgetRule(context),
  ];
  return sortForApply(
    objects
      .filter((o): o is KubernetesObject => o !== undefined)
      .map(stableObject),
  );
}
