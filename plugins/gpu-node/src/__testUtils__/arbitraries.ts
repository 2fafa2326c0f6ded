import fc from 'fast-check';
import {
  checkpointFor,
  defaultDtypeFor,
  defaultGpuModels,
  fitSlices,
  FitResult,
  GpuModel,
  NodeTaint,
  parsePlatform,
  Platform,
  PlatformConfig,
  ServiceRequest,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { ServiceRenderOptions } from '../service/types';

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
        !checkpointFor(
          platform.models[request.model],
          request.dtype ??
            defaultDtypeFor(platform.models[request.model], request.runtime),
          request.runtime,
        )
      )
        return undefined;
      const fits = fitSlices(platform, request).filter(f => f.fits);
      return fits.length
        ? { request, fit: fits[pick % fits.length] }
        : undefined;
    });
}

const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const LOWER_DIGITS = `${LOWER}0123456789`;
const ALNUM = `${LOWER_DIGITS}ABCDEFGHIJKLMNOPQRSTUVWXYZ`;

/** A string of `length` (>= 1) characters: `first`, then `middle`, ending in one of `last`. */
function shaped(
  length: fc.Arbitrary<number>,
  first: string,
  middle: string,
  last: string,
): fc.Arbitrary<string> {
  const char = (set: string) =>
    fc.nat({ max: set.length - 1 }).map(i => set[i]);
  return length.chain(n =>
    n === 1
      ? char(first)
      : fc
          .tuple(
            char(first),
            fc.array(char(middle), { minLength: n - 2, maxLength: n - 2 }),
            char(last),
          )
          .map(([a, b, c]) => a + b.join('') + c),
  );
}

/** Lengths biased to both ends: mostly short, sometimes at or near `max`. */
const lengthUpTo = (max: number) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min: 1, max: Math.min(12, max) }) },
    { weight: 1, arbitrary: fc.integer({ min: Math.max(1, max - 4), max }) },
  );

/** A DNS-1123 label (starts with a letter) of at most `maxLength` characters. */
const dnsLabel = (maxLength: number) =>
  shaped(lengthUpTo(maxLength), LOWER, `${LOWER_DIGITS}-`, LOWER_DIGITS);

/** A qualified name (label or taint key): an optional DNS subdomain prefix (<= 253) and `/`, a name of <= 63. */
const qualifiedName = fc
  .tuple(
    fc.option(
      fc
        .array(dnsLabel(63), { minLength: 1, maxLength: 5 })
        .map(labels => labels.join('.'))
        .filter(prefix => prefix.length <= 253),
      { nil: undefined },
    ),
    shaped(lengthUpTo(63), ALNUM, `${ALNUM}-_.`, ALNUM),
  )
  .map(([prefix, name]) => (prefix ? `${prefix}/${name}` : name));

/** A label value: empty, or <= 63 alphanumerics, `-`, `_`, `.` starting and ending alphanumeric. */
const labelValue = fc.oneof(
  fc.constant(''),
  shaped(lengthUpTo(63), ALNUM, `${ALNUM}-_.`, ALNUM),
);

const TAINT_KEYS = [
  'nvidia.com/gpu',
  'gpu.example.com/spot',
  'gpu.example.com/reserved-for',
  'dedicated',
];

/** Taints as config may list them: with a value, without one, with an empty one; the same key with several effects. */
const taintArbitrary = fc.record({
  key: fc.oneof(fc.constantFrom(...TAINT_KEYS), qualifiedName),
  value: fc.option(
    fc.oneof(fc.constantFrom('present', 'true', ''), labelValue),
    { nil: undefined },
  ),
  effect: fc.constantFrom(
    'NoSchedule' as const,
    'PreferNoSchedule' as const,
    'NoExecute' as const,
  ),
});

/** Node labels beside the pool's own (at most 6, so that with the pool and capacity-type labels there are <= 8). */
const EXTRA_LABELS = fc.dictionary(
  fc.oneof(
    fc.constantFrom(
      'node.kubernetes.io/instance-type',
      'topology.kubernetes.io/zone',
      'tier',
    ),
    qualifiedName,
  ),
  fc.oneof(fc.constantFrom('g6.xlarge', 'eu-west-1a', 'gold'), labelValue),
  { maxKeys: 6 },
);

/**
 * Taints where a repeated key and effect repeats the value too: config may list a taint twice (the renderer lists it
 * once), but two values for one key and effect are a config no node can carry, which the renderer refuses.
 */
function repeatsAgree(taints: NodeTaint[]): NodeTaint[] {
  const first = new Map<string, NodeTaint>();
  return taints.map(taint => {
    const id = `${taint.key}\u0000${taint.effect}`;
    const earlier = first.get(id);
    if (!earlier) {
      first.set(id, taint);
      return taint;
    }
    return { ...taint, value: earlier.value };
  });
}

/** A MIG layout of `gpuModel` within its compute slices, memory and per-profile instance limits. */
function migLayout(
  gpuModel: GpuModel,
  picks: number[],
): Record<string, number> {
  const layout: Record<string, number> = {};
  let slices = 0;
  let memoryGb = 0;
  for (const pick of picks) {
    const profile = gpuModel.migProfiles[pick % gpuModel.migProfiles.length];
    const count = layout[profile.name] ?? 0;
    if (
      count < profile.maxInstances &&
      slices + profile.computeSlices <= gpuModel.migComputeSlices &&
      (memoryGb + profile.memoryGb) * 1e9 <= gpuModel.memoryGiB * 2 ** 30
    ) {
      layout[profile.name] = count + 1;
      slices += profile.computeSlices;
      memoryGb += profile.memoryGb;
    }
  }
  return layout;
}

const sharingArbitrary = fc.oneof(
  fc.constant({ type: 'none' as const }),
  fc.record({
    type: fc.constant('mig' as const),
    picks: fc.array(fc.nat(), { minLength: 1, maxLength: 8 }),
  }),
  fc.record({
    type: fc.constantFrom('mps' as const, 'time-slicing' as const),
    replicas: fc.integer({ min: 2, max: 48 }),
    renameByDefault: fc.boolean(),
  }),
);

const poolArbitrary = fc.record({
  name: dnsLabel(63).filter(name => name !== 'gpu-host'),
  gpuModel: fc.constantFrom(...Object.keys(defaultGpuModels)),
  gpusPerNode: fc.constantFrom(1, 2, 4, 8, 16),
  maxNodes: fc.integer({ min: 1, max: 4 }),
  capacityType: fc.option(
    fc.constantFrom('on-demand' as const, 'spot' as const),
    {
      nil: undefined,
    },
  ),
  pricePerNodeHour: fc.oneof(
    fc.constantFrom('0.526', '0.8048', '27.447'),
    fc.integer({ min: 0, max: 100_000 }).map(mills => mills / 1000),
  ),
  extraLabels: EXTRA_LABELS,
  taints: fc.array(taintArbitrary, { maxLength: 8 }),
  sharing: sharingArbitrary,
});

/**
 * A platform config over the built-in GPU catalogue, valid by `parsePlatform`: 1 to 5 pools with no sharing, a MIG
 * layout the GPU holds, or MPS / time-slicing with R replicas (with and without `renameByDefault`), on-demand or spot,
 * taints with and without values, extra node labels (each pool also has a `gpu.example.com/pool` label so pools
 * offering the same resource stay distinguishable); 1 to 3 teams with one or two namespaces and quotas (some
 * fractional, some 0) on some pools; either Kueue API version; the default or a custom set of environments.
 */
export function platformArbitrary(): fc.Arbitrary<Platform> {
  const pools = fc.uniqueArray(poolArbitrary, {
    minLength: 1,
    maxLength: 5,
    selector: p => p.name,
  });
  return fc
    .record({
      pools,
      teams: fc.uniqueArray(
        fc.record({
          name: dnsLabel(63),
          extraNamespace: fc.option(dnsLabel(63), { nil: undefined }),
          quotas: fc.array(
            fc.option(
              fc.constantFrom(0, 0.3, 0.5, 1, 1.25, 2, 4, 8, 1000, 1_000_000),
              {
                nil: undefined,
              },
            ),
            { minLength: 5, maxLength: 5 },
          ),
          monthlyBudget: fc.constantFrom('500', 2500, '60000.50'),
        }),
        { minLength: 1, maxLength: 3, selector: t => t.name },
      ),
      apiVersion: fc.constantFrom(
        'kueue.x-k8s.io/v1beta2' as const,
        'kueue.x-k8s.io/v1beta1' as const,
      ),
      cohort: fc.option(dnsLabel(63), { nil: undefined }),
      customEnvironments: fc.boolean(),
    })
    .map(config => {
      const usedNamespaces = new Set<string>();
      const raw: PlatformConfig = {
        kueue: {
          apiVersion: config.apiVersion,
          ...(config.cohort ? { cohort: config.cohort } : {}),
        },
        pools: config.pools.map(p => {
          const gpu = defaultGpuModels[p.gpuModel];
          let sharing: NonNullable<PlatformConfig['pools']>[number]['sharing'];
          let renameByDefault: boolean | undefined;
          if (p.sharing.type === 'mig' && gpu.migProfiles.length > 0) {
            sharing = { type: 'mig', layout: migLayout(gpu, p.sharing.picks) };
          } else if (
            p.sharing.type === 'mps' ||
            p.sharing.type === 'time-slicing'
          ) {
            sharing = { type: p.sharing.type, replicas: p.sharing.replicas };
            renameByDefault = p.sharing.renameByDefault || undefined;
          } else {
            sharing = { type: 'none' };
          }
          return {
            name: p.name,
            gpuModel: p.gpuModel,
            gpusPerNode: p.gpusPerNode,
            maxNodes: p.maxNodes,
            capacityType: p.capacityType,
            pricePerNodeHour: p.pricePerNodeHour,
            nodeLabels: {
              ...p.extraLabels,
              ...(p.capacityType
                ? { 'karpenter.sh/capacity-type': p.capacityType }
                : {}),
              'gpu.example.com/pool': p.name,
            },
            nodeTaints: repeatsAgree(p.taints),
            sharing,
            renameByDefault,
          };
        }),
        teams: config.teams.map(t => {
          const namespaces = [t.name, t.extraNamespace]
            .filter((n): n is string => n !== undefined)
            .filter(n => !usedNamespaces.has(n));
          namespaces.forEach(n => usedNamespaces.add(n));
          return {
            name: t.name,
            namespaces: namespaces.length > 0 ? namespaces : undefined,
            gpuQuota: Object.fromEntries(
              config.pools.flatMap((pool, i) =>
                t.quotas[i] === undefined ? [] : [[pool.name, t.quotas[i]]],
              ),
            ),
            monthlyBudget: t.monthlyBudget,
          };
        }),
        ...(config.customEnvironments
          ? {
              environments: [
                { name: 'dev' },
                {
                  name: 'qa',
                  allowedTiers: ['mps', 'time-sliced', 'mig'],
                  podDisruptionBudget: true,
                },
                {
                  name: 'prod',
                  allowedTiers: ['dedicated', 'mig'],
                  maxDedicatedGpus: 8,
                },
              ],
            }
          : {}),
      };
      return raw;
    })
    .filter(raw => {
      // Team namespaces that collided with another team's were dropped; a team left without one keeps its name
      // as namespace only if no other team took it.
      const all = (raw.teams ?? []).flatMap(t => t.namespaces ?? [t.name]);
      return new Set(all).size === all.length;
    })
    .map(raw => parsePlatform(raw));
}

/**
 * Render options of a service: a service id, a wake trigger (requests may scale to zero), and sometimes a token
 * secret, a model cache setting, a runtime class, images, extra labels and annotations, security contexts, rollout
 * and disruption settings.
 */
export const serviceOptionsArbitrary: fc.Arbitrary<ServiceRenderOptions> = fc
  .record({
    serviceId: fc.oneof(
      fc.uuid(),
      fc.stringMatching(/^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/),
    ),
    huggingFaceTokenSecret: fc.option(
      fc.constant({ name: 'hf-token', key: 'token' }),
      { nil: undefined },
    ),
    modelCache: fc.option(
      fc.oneof(
        fc.constant({ storageClassName: 'kwok-volume' }),
        fc.constant({ existingClaim: 'shared-model-cache' }),
      ),
      { nil: undefined },
    ),
    runtimeClassName: fc.option(fc.constant('nvidia'), { nil: undefined }),
    images: fc.option(
      fc.oneof(
        fc.constant({
          vllm: 'registry.example.com/vllm/vllm-openai:v0.9.2',
          ollama: 'registry.example.com/ollama/ollama:0.9.6',
        }),
        fc.constant({
          registry: 'mirror.example.com/hub',
          vllm: `vllm/vllm-openai@sha256:${'a'.repeat(64)}`,
        }),
      ),
      { nil: undefined },
    ),
    labels: fc.option(fc.constant({ 'example.com/cost-centre': 'ml-42' }), {
      nil: undefined,
    }),
    annotations: fc.option(
      fc.constant({ 'example.com/owner': 'ML platform <ml@example.com>' }),
      { nil: undefined },
    ),
    podSecurityContext: fc.option(
      fc.constant({ seccompProfile: { type: 'RuntimeDefault' as const } }),
      { nil: undefined },
    ),
    containerSecurityContext: fc.option(
      fc.constant({
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
      }),
      { nil: undefined },
    ),
    zeroDowntimeRollouts: fc.option(fc.boolean(), { nil: undefined }),
    surge: fc.option(
      fc.record({ fits: fc.boolean(), reason: fc.constant('test quota') }),
      { nil: undefined },
    ),
    podDisruptionBudget: fc.option(
      fc.record({ maxUnavailable: fc.integer({ min: 1, max: 3 }) }),
      { nil: undefined },
    ),
    // Scale to zero needs a wake trigger; the requests may ask for minReplicas 0.
    wakeTrigger: fc.constant({
      type: 'prometheus' as const,
      query: 'sum(gateway_pending_requests{service="{{service}}"})',
    }),
  })
  .map(
    options =>
      Object.fromEntries(
        Object.entries(options).filter(([, v]) => v !== undefined),
      ) as unknown as ServiceRenderOptions,
  );

/** `count` values of `arbitrary` from fast-check's fixed run number `run`: the same values on every test run. */
export function fixedSample<T>(
  arbitrary: fc.Arbitrary<T>,
  count: number,
  run: number,
): T[] {
  return fc.sample(arbitrary, { numRuns: count, seed: run });
}
