import { checkScaleToZero } from './checkScaleToZero';
import { resolveServiceSettings } from './resolveServiceSettings';
import { ServiceDefaults } from './types';

const defaults: ServiceDefaults = {
  defaults: {
    images: { registry: 'mirror.example.com/hub', vllm: 'vllm/vllm-openai:v1' },
    labels: { team: 'a', tier: 'x' },
    modelCache: { storageClassName: 'gp3' },
    runtimeClassName: 'nvidia',
  },
  byPool: {
    l4: {
      images: { vllm: 'vllm/vllm-openai:v2' },
      modelCache: { existingClaim: 'l4-cache' },
      runtimeClassName: 'nvidia-l4',
    },
  },
  byEnvironment: {
    production: {
      labels: { tier: 'critical' },
      runtimeClassName: 'nvidia-prod',
      zeroDowntimeRollouts: false,
    },
    dev: { wakeTrigger: { type: 'http-add-on', scaledownPeriodSeconds: 60 } },
  },
};

describe('resolveServiceSettings', () => {
  it('layers the environment over the pool over the defaults, merging maps key by key', () => {
    expect(
      resolveServiceSettings(defaults, {
        environment: 'production',
        pool: 'l4',
      }),
    ).toEqual({
      images: {
        registry: 'mirror.example.com/hub',
        vllm: 'vllm/vllm-openai:v2',
      },
      labels: { team: 'a', tier: 'critical' },
      // the pool's shared claim replaces the defaults' storage class
      modelCache: { existingClaim: 'l4-cache' },
      runtimeClassName: 'nvidia-prod',
      zeroDowntimeRollouts: false,
    });
  });

  it('rolls out with a surge in production and staging unless configured otherwise', () => {
    const on = (environment: string) =>
      resolveServiceSettings(undefined, { environment }).zeroDowntimeRollouts;
    expect([on('production'), on('staging'), on('dev')]).toEqual([
      true,
      true,
      false,
    ]);
    expect(
      resolveServiceSettings(defaults, { environment: 'production' })
        .zeroDowntimeRollouts,
    ).toBe(false);
  });
});

describe('checkScaleToZero', () => {
  const request = {
    environment: 'production',
    pool: 'l4',
    autoscaling: {
      minReplicas: 0,
      maxReplicas: 2,
      targetQueueDepth: 4,
      engine: 'keda' as const,
    },
  };

  it('refuses scale to zero without a wake trigger, saying what to configure', () => {
    expect(() =>
      checkScaleToZero(
        request,
        resolveServiceSettings(defaults, {
          environment: 'production',
          pool: 'l4',
        }),
      ),
    ).toThrow(
      /needs a trigger outside the service's pods.*gpu\.serviceDefaults\.scaleToZero \(or its byEnvironment\.production or byPool\.l4 override\)/,
    );
  });

  it('allows it with a wake trigger, and anything with one replica or more', () => {
    expect(() =>
      checkScaleToZero(
        { ...request, environment: 'dev' },
        resolveServiceSettings(defaults, { environment: 'dev', pool: 'l4' }),
      ),
    ).not.toThrow();
    expect(() =>
      checkScaleToZero(
        { ...request, autoscaling: { ...request.autoscaling, minReplicas: 1 } },
        {},
      ),
    ).not.toThrow();
  });
});
