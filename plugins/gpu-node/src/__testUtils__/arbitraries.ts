import fc from 'fast-check';
import {
  fitSlices,
  FitResult,
  Platform,
  ServiceRequest,
} from '@internal/backstage-plugin-gpu-common';

function requestArbitrary(platform: Platform): fc.Arbitrary<ServiceRequest> {
  return fc
    .record({
      name: fc.stringMatching(/^[a-z]([-a-z0-9]{0,38}[a-z0-9])?$/),
      teamIndex: fc.nat({ max: platform.teams.length - 1 }),
      namespaceIndex: fc.nat({ max: 1 }),
      model: fc.constantFrom(...Object.keys(platform.models)),
      runtime: fc.constantFrom('vllm' as const, 'ollama' as const),
      dtype: fc.option(
        fc.constantFrom(
          'bf16' as const,
          'fp16' as const,
          'fp8' as const,
          'int8' as const,
          'int4' as const,
        ),
        { nil: undefined },
      ),
      maxModelLen: fc.integer({ min: 256, max: 32768 }),
      concurrency: fc.integer({ min: 1, max: 64 }),
      replicas: fc.integer({ min: 1, max: 4 }),
      environment: fc.constantFrom(...platform.environments.map(e => e.name)),
      autoscaling: fc.option(
        fc.record({
          minReplicas: fc.integer({ min: 0, max: 2 }),
          extra: fc.integer({ min: 0, max: 6 }),
          targetQueueDepth: fc.integer({ min: 1, max: 50 }),
          engine: fc.constantFrom('keda' as const, 'hpa' as const),
        }),
        { nil: undefined },
      ),
    })
    .map(r => {
      const team = platform.teams[r.teamIndex];
      const autoscaling =
        r.autoscaling && r.runtime === 'vllm'
          ? {
              minReplicas:
                r.autoscaling.engine === 'hpa'
                  ? Math.max(1, r.autoscaling.minReplicas)
                  : r.autoscaling.minReplicas,
              maxReplicas:
                Math.max(1, r.autoscaling.minReplicas) + r.autoscaling.extra,
              targetQueueDepth: r.autoscaling.targetQueueDepth,
              engine: r.autoscaling.engine,
            }
          : undefined;
      return {
        name: r.name,
        team: team.name,
        namespace: team.namespaces[r.namespaceIndex % team.namespaces.length],
        model: r.model,
        runtime: r.runtime,
        dtype: r.dtype,
        maxModelLen: r.maxModelLen,
        concurrency: r.concurrency,
        replicas: r.replicas,
        environment: r.environment,
        autoscaling,
      };
    });
}

/**
 * A valid request for `platform` with a slice it fits (any tier, any pool), or undefined when it fits none (skip
 * those with `fc.pre`).
 */
export function renderableRequest(
  platform: Platform,
): fc.Arbitrary<{ request: ServiceRequest; fit: FitResult } | undefined> {
  return fc
    .tuple(requestArbitrary(platform), fc.nat())
    .map(([request, pick]) => {
      if (
        request.runtime === 'ollama' &&
        !platform.models[request.model].ollamaTag
      )
        return undefined;
      const fits = fitSlices(platform, request).filter(f => f.fits);
      return fits.length
        ? { request, fit: fits[pick % fits.length] }
        : undefined;
    });
}
