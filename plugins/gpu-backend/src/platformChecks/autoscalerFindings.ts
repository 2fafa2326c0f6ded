import type {
  KubernetesObject,
  V1Deployment,
  V2HorizontalPodAutoscaler,
} from '@kubernetes/client-node';
import { PlatformFinding } from '@gpu-platform/backstage-plugin-gpu-common';
import { describeRef } from '../cluster/objectRef';
import { isGpuResource } from './gpuNodeFindings';

/** A KEDA ScaledObject, as far as the check reads it. */
export interface ScaledObject extends KubernetesObject {
  spec?: {
    scaleTargetRef?: { kind?: string; name?: string };
    triggers?: Array<{ type?: string }>;
  };
}

const CPU_OR_MEMORY = new Set(['cpu', 'memory']);

/** `namespace/name` of every Deployment whose pods request (or are limited to) GPUs. */
export function gpuDeployments(deployments: V1Deployment[]): Set<string> {
  return new Set(
    deployments
      .filter(d =>
        [
          ...(d.spec?.template?.spec?.containers ?? []),
          ...(d.spec?.template?.spec?.initContainers ?? []),
        ].some(c =>
          [
            ...Object.keys(c.resources?.requests ?? {}),
            ...Object.keys(c.resources?.limits ?? {}),
          ].some(isGpuResource),
        ),
      )
      .map(d => `${d.metadata?.namespace}/${d.metadata?.name}`),
  );
}

function targetsGpuDeployment(
  namespace: string | undefined,
  target: { kind?: string; name?: string } | undefined,
  gpu: Set<string>,
): boolean {
  return (
    (target?.kind ?? 'Deployment') === 'Deployment' &&
    gpu.has(`${namespace}/${target?.name}`)
  );
}

function finding(
  cluster: string,
  ref: { kind: string; namespace?: string; name: string },
  metrics: string[],
  deployment: string,
): PlatformFinding {
  return {
    id: 'cpu-autoscaling-on-gpu',
    severity: 'error',
    source: 'cluster',
    cluster,
    where: describeRef({ apiVersion: '', ...ref }),
    message: `${describeRef({
      apiVersion: '',
      ...ref,
    })} scales GPU Deployment ${deployment} on ${metrics.join(
      ' and ',
    )}: a model server is bound by its GPU, its CPU stays low while requests queue up, so it does not scale out under load (or scales on noise)`,
    fix: `Scale on the serving queue instead: vllm:num_requests_waiting per replica (the platform's autoscaling.engine keda or hpa renders it), or GPU utilisation from DCGM; remove the ${metrics.join(
      ' and ',
    )} metrics`,
  };
}

/**
 * `cpu-autoscaling-on-gpu`: HorizontalPodAutoscalers (other than the ones KEDA makes for its ScaledObjects) and KEDA
 * ScaledObjects that scale a GPU Deployment on CPU or memory.
 */
export function autoscalerFindings(
  cluster: string,
  objects: {
    deployments: V1Deployment[];
    autoscalers: V2HorizontalPodAutoscaler[];
    scaledObjects: ScaledObject[];
  },
): PlatformFinding[] {
  const gpu = gpuDeployments(objects.deployments);
  const findings: PlatformFinding[] = [];
  for (const hpa of objects.autoscalers) {
    const namespace = hpa.metadata?.namespace;
    const ownedByKeda = (hpa.metadata?.ownerReferences ?? []).some(
      o => o.kind === 'ScaledObject',
    );
    if (
      ownedByKeda ||
      !targetsGpuDeployment(namespace, hpa.spec?.scaleTargetRef, gpu)
    )
      continue;
    const metrics = (hpa.spec?.metrics ?? [])
      .map(m => m.resource?.name ?? m.containerResource?.name)
      .filter((name): name is string => !!name && CPU_OR_MEMORY.has(name));
    // An HPA without metrics scales on 80% CPU.
    const effective = hpa.spec?.metrics?.length ? metrics : ['cpu'];
    if (effective.length > 0) {
      findings.push(
        finding(
          cluster,
          {
            kind: 'HorizontalPodAutoscaler',
            namespace,
            name: hpa.metadata?.name ?? '',
          },
          [...new Set(effective)],
          `${namespace}/${hpa.spec?.scaleTargetRef.name}`,
        ),
      );
    }
  }
  for (const scaled of objects.scaledObjects) {
    const namespace = scaled.metadata?.namespace;
    if (!targetsGpuDeployment(namespace, scaled.spec?.scaleTargetRef, gpu))
      continue;
    const metrics = (scaled.spec?.triggers ?? [])
      .map(t => t.type)
      .filter((type): type is string => !!type && CPU_OR_MEMORY.has(type));
    if (metrics.length > 0) {
      findings.push(
        finding(
          cluster,
          {
            kind: 'ScaledObject',
            namespace,
            name: scaled.metadata?.name ?? '',
          },
          [...new Set(metrics)],
          `${namespace}/${scaled.spec?.scaleTargetRef?.name}`,
        ),
      );
    }
  }
  return findings;
}
