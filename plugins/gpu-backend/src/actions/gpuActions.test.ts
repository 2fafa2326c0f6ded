import { createServiceFactory } from '@backstage/backend-plugin-api';
import { actionsRegistryServiceRef } from '@backstage/backend-plugin-api/alpha';
import {
  mockCredentials,
  mockServices,
  startTestBackend,
} from '@backstage/backend-test-utils';
import { actionsRegistryServiceMock } from '@backstage/backend-test-utils/alpha';
import { catalogServiceMock } from '@backstage/plugin-catalog-node/testUtils';
import { JsonObject } from '@backstage/types';
import {
  demoPlatformConfig,
  ServiceRequest,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { devSummariser } from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import supertest from 'supertest';
import { gpuPlugin } from '../plugin';
import {
  asUser,
  demoUserInfo,
  realPermissionPolicy,
  userRef,
} from '../__testUtils__/demoUsers';
import { databaseClosedOnShutdown } from '../testUtils/databaseClosedOnShutdown';

jest.setTimeout(120_000);

/**
 * The gpu plugin's actions on a real backend (SQLite, the real permission backend with the policy the app installs):
 * bob is in ml-platform, carol in search, alice in the platform team.
 */
describe('gpu actions', () => {
  const registry = actionsRegistryServiceMock();
  let backend: Awaited<ReturnType<typeof startTestBackend>>;

  beforeAll(async () => {
    backend = await startTestBackend({
      features: [
        databaseClosedOnShutdown,
        gpuPlugin,
        createServiceFactory({
          service: actionsRegistryServiceRef,
          deps: {},
          factory: () => registry,
        }),
        mockServices.rootConfig.factory({
          data: { gpu: demoPlatformConfig, permission: { enabled: true } },
        }),
        // search's component, which an ml-platform service may not be bound to.
        catalogServiceMock.factory({
          entities: [
            {
              apiVersion: 'backstage.io/v1alpha1',
              kind: 'Component',
              metadata: { name: 'search-ranker', namespace: 'default' },
              spec: { type: 'service', owner: 'group:default/search' },
            },
          ],
        }),
        demoUserInfo(),
        ...realPermissionPolicy(),
      ],
    });
  });

  afterAll(() => backend?.stop());

  const as = (user: string) => mockCredentials.user(userRef(user));
  const invoke = (user: string, name: string, input: JsonObject) =>
    registry.invoke({ id: `test:${name}`, input, credentials: as(user) });
  const output = async (user: string, name: string, input: JsonObject) =>
    (await invoke(user, name, input)).output as any;
  const request = (name: string, team = 'ml-platform'): ServiceRequest => ({
    ...devSummariser,
    name,
    team,
  });
  const create = async (user: string, name: string, team?: string) =>
    (
      await output(user, 'create-gpu-service', {
        request: request(name, team) as unknown as JsonObject,
      })
    ).service;
  const idsListedFor = async (user: string) =>
    (await output(user, 'list-gpu-services', { limit: 200 })).items.map(
      (s: { id: string }) => s.id,
    );

  it('registers the eight actions with their attributes and described input fields', async () => {
    const { actions } = await registry.list();
    const byName = Object.fromEntries(actions.map(a => [a.name, a]));
    expect(Object.keys(byName).sort()).toEqual([
      'change-gpu-service',
      'create-gpu-service',
      'delete-gpu-service',
      'get-gpu-service-cost',
      'get-gpu-service-status',
      'list-gpu-services',
      'list-gpu-team-quotas',
      'quote-gpu-service',
    ]);
    for (const name of [
      'quote-gpu-service',
      'list-gpu-services',
      'get-gpu-service-status',
      'get-gpu-service-cost',
      'list-gpu-team-quotas',
    ]) {
      expect(byName[name].attributes).toEqual({
        readOnly: true,
        idempotent: true,
        destructive: false,
      });
    }
    expect(byName['create-gpu-service'].attributes).toEqual({
      readOnly: false,
      idempotent: false,
      destructive: false,
    });
    expect(byName['change-gpu-service'].attributes.destructive).toBe(false);
    expect(byName['delete-gpu-service'].attributes).toEqual({
      readOnly: false,
      idempotent: true,
      destructive: true,
    });
    const quoteInput = byName['quote-gpu-service'].schema.input as any;
    expect(quoteInput.required).toEqual(
      expect.arrayContaining(['name', 'team', 'model', 'environment']),
    );
    expect(quoteInput.properties.tier.enum).toEqual([
      'dedicated',
      'mig',
      'mps',
      'time-sliced',
    ]);
    expect(quoteInput.properties.runtime.enum).toEqual(['vllm', 'ollama']);
    const createInput = byName['create-gpu-service'].schema.input as any;
    expect(createInput.properties.request.properties.model.description).toMatch(
      /catalogue/,
    );
    const costOutput = byName['get-gpu-service-cost'].schema.output as any;
    expect(costOutput.properties.allocationMicros.description).toMatch(
      /micro-dollars/,
    );
    const quotasOutput = byName['list-gpu-team-quotas'].schema.output as any;
    expect(
      quotasOutput.properties.items.items.properties.remainingGpuEquivalents
        .description,
    ).toMatch(/never below 0/);
    expect(byName['list-gpu-team-quotas'].examples).toHaveLength(1);
  });

  it('quotes a request for any signed-in user, and names the field of a bad one', async () => {
    const quote = await output('carol', 'quote-gpu-service', {
      ...(request('quoted') as unknown as JsonObject),
      tier: undefined,
      pool: undefined,
    });
    expect(quote.team).toBe('ml-platform');
    expect(quote.options.length).toBeGreaterThan(0);
    expect(quote.recommended.slice.pool).toEqual(expect.any(String));
    expect(quote.recommended.cost.monthly).toBeGreaterThan(0);

    await expect(
      invoke('bob', 'quote-gpu-service', {
        ...(request('quoted') as unknown as JsonObject),
        tier: 'gold',
      }),
    ).rejects.toMatchObject({
      name: 'InputError',
      message:
        'tier: expected one of dedicated, mig, mps, time-sliced, got "gold"',
    });
    await expect(
      invoke('bob', 'quote-gpu-service', {
        ...(request('Not A Label') as unknown as JsonObject),
      }),
    ).rejects.toMatchObject({
      name: 'InputError',
      message: expect.stringMatching(/name/),
    });
  });

  it("shows the team's quota and budget in a quote only to callers who may read them", async () => {
    const input = {
      ...(request('quoted') as unknown as JsonObject),
      tier: undefined,
      pool: undefined,
    };
    for (const user of ['bob', 'alice']) {
      const quote = await output(user, 'quote-gpu-service', input);
      expect(quote.teamFiguresWithheld).toBeUndefined();
      expect(quote.recommended.quota).toMatchObject({
        nominal: expect.any(Number),
        used: expect.any(Number),
      });
      expect(quote.recommended.budget.monthlyBudget).toBeGreaterThan(0);
    }
    const withheld = await output('carol', 'quote-gpu-service', input);
    expect(withheld.teamFiguresWithheld).toMatch(
      /You may not read team ml-platform's quota/,
    );
    expect(withheld.options.length).toBeGreaterThan(0);
    for (const option of [...withheld.options, withheld.recommended]) {
      expect(option).not.toHaveProperty('quota');
      expect(option).not.toHaveProperty('budget');
      expect(option.cost.monthly).toBeGreaterThan(0);
    }
    expect(JSON.stringify(withheld)).not.toMatch(/committed|monthlyBudget/);
  });

  it('names the field of a wrongly typed or missing input and what it expected', async () => {
    await expect(
      invoke('bob', 'quote-gpu-service', {
        ...(request('quoted') as unknown as JsonObject),
        replicas: 'two',
      }),
    ).rejects.toMatchObject({
      name: 'InputError',
      message: 'replicas: expected a number, got string',
    });
    const { name: _name, ...unnamed } = request('unnamed');
    await expect(
      invoke('bob', 'quote-gpu-service', unnamed as unknown as JsonObject),
    ).rejects.toMatchObject({
      name: 'InputError',
      message: 'name: required, expected a string',
    });
    const before = await idsListedFor('alice');
    await expect(
      invoke('bob', 'create-gpu-service', {
        request: {
          ...(request('mistyped') as unknown as JsonObject),
          replicas: 'two',
          autoscaling: { minReplicas: 1, maxReplicas: '4' },
        },
        dryRun: 'no',
      }),
    ).rejects.toMatchObject({
      name: 'InputError',
      message:
        'request.replicas: expected a number, got string; ' +
        'request.autoscaling.maxReplicas: expected a number, got string; ' +
        'request.autoscaling.targetQueueDepth: required, expected a number; ' +
        'request.autoscaling.engine: required, expected a string; ' +
        'dryRun: expected a boolean, got string',
    });
    expect(await idsListedFor('alice')).toEqual(before);
    await expect(
      invoke('bob', 'list-gpu-services', { limit: [50] }),
    ).rejects.toMatchObject({
      name: 'InputError',
      message: 'limit: expected a number, got array',
    });
  });

  it("lists every team's quota, held and left per pool, for the platform team only, naming the permission it needs", async () => {
    const held = await create('bob', 'quota-holder');
    const { items } = await output('alice', 'list-gpu-team-quotas', {});
    const teams = demoPlatformConfig.teams.map(t => t.name).sort();
    expect(items.map((q: { team: string }) => q.team).sort()).toEqual(teams);
    const ml = items.find((q: { team: string }) => q.team === 'ml-platform');
    const pool = held.placement.pool;
    expect(ml.pools[pool]).toBeGreaterThan(0);
    expect(ml.reservedGpuEquivalents[pool]).toBeGreaterThanOrEqual(
      held.gpuEquivalents,
    );
    expect(ml.remainingGpuEquivalents[pool]).toBeCloseTo(
      Math.max(0, ml.pools[pool] - ml.reservedGpuEquivalents[pool]),
      6,
    );
    expect(Object.keys(ml.remainingGpuEquivalents).sort()).toEqual(
      Object.keys(ml.pools).sort(),
    );
    expect(ml.remainingMonthlyBudgetMicros).toBe(
      Math.max(0, ml.monthlyBudgetMicros - ml.reservedMonthlyCostMicros),
    );

    // The records of GET /quotas for the same caller, with what is left added.
    const http = await supertest(backend.server)
      .get('/api/gpu/quotas')
      .set('authorization', asUser('alice'));
    expect(http.status).toBe(200);
    expect(
      items.map(
        ({
          remainingGpuEquivalents: _pools,
          remainingMonthlyBudgetMicros: _budget,
          ...quota
        }: Record<string, unknown>) => quota,
      ),
    ).toEqual(http.body.items);

    for (const user of ['bob', 'carol', 'dave']) {
      await expect(
        invoke(user, 'list-gpu-team-quotas', {}),
      ).rejects.toMatchObject({
        name: 'NotAllowedError',
        message:
          "You are not allowed to list every team's GPU quota without the gpu.quota.read permission",
      });
    }
    await output('bob', 'delete-gpu-service', { serviceId: held.id });
  });

  it("creates, lists, reads, changes and deletes a team's service for its members only", async () => {
    const service = await create('bob', 'action-made');
    expect(service).toMatchObject({
      name: 'action-made',
      team: 'ml-platform',
      status: 'approved',
      mode: 'dry-run',
      createdBy: userRef('bob'),
      request: expect.objectContaining({ model: devSummariser.model }),
      annotations: expect.any(Object),
    });

    expect(await idsListedFor('bob')).toContain(service.id);
    expect(await idsListedFor('alice')).toContain(service.id);
    expect(await idsListedFor('carol')).not.toContain(service.id);
    // Outside the platform team, another team's services are not listed even when asked for by team.
    expect(
      (await output('carol', 'list-gpu-services', { team: 'ml-platform' }))
        .items,
    ).toEqual([]);
    const filtered = await output('bob', 'list-gpu-services', {
      team: 'ml-platform',
      status: 'approved',
      search: 'action-made',
    });
    expect(filtered.items.map((s: { id: string }) => s.id)).toEqual([
      service.id,
    ]);
    await expect(
      invoke('bob', 'list-gpu-services', { status: 'running' }),
    ).rejects.toMatchObject({
      name: 'InputError',
      message: expect.stringMatching(/Invalid status "running"; allowed: /),
    });
    await expect(
      invoke('bob', 'list-gpu-services', { limit: 500 }),
    ).rejects.toMatchObject({ name: 'InputError' });

    const status = await output('bob', 'get-gpu-service-status', {
      serviceId: service.id,
    });
    expect(status.service).toMatchObject({
      id: service.id,
      status: 'approved',
    });
    expect(status.service.manifests).toBeUndefined();
    await expect(
      invoke('carol', 'get-gpu-service-status', { serviceId: service.id }),
    ).rejects.toMatchObject({
      name: 'NotAllowedError',
      message: expect.stringMatching(/action-made of team ml-platform/),
    });
    await expect(
      invoke('bob', 'get-gpu-service-status', { serviceId: 'no-such-id' }),
    ).rejects.toMatchObject({ name: 'NotFoundError' });

    const cost = await output('bob', 'get-gpu-service-cost', {
      serviceId: service.id,
      window: '24h',
    });
    expect(cost).toMatchObject({
      serviceId: service.id,
      accrualBasis: 'dry-run',
      allocationMicros: 0,
      metrics: expect.any(Object),
    });
    await expect(
      invoke('carol', 'get-gpu-service-cost', { serviceId: service.id }),
    ).rejects.toMatchObject({ name: 'NotAllowedError' });
    await expect(
      invoke('bob', 'get-gpu-service-cost', {
        serviceId: service.id,
        window: 'forever',
      }),
    ).rejects.toMatchObject({ name: 'InputError' });

    await expect(
      invoke('carol', 'change-gpu-service', {
        serviceId: service.id,
        replicas: 2,
      }),
    ).rejects.toMatchObject({ name: 'NotAllowedError' });
    await expect(
      invoke('bob', 'change-gpu-service', { serviceId: service.id }),
    ).rejects.toMatchObject({
      name: 'InputError',
      message: expect.stringMatching(/Nothing to change/),
    });
    await expect(
      invoke('bob', 'change-gpu-service', {
        serviceId: service.id,
        tier: 'gold',
      }),
    ).rejects.toMatchObject({ name: 'InputError' });
    const changed = await output('bob', 'change-gpu-service', {
      serviceId: service.id,
      replicas: 2,
    });
    expect(changed.service).toMatchObject({
      id: service.id,
      request: expect.objectContaining({ replicas: 2 }),
    });

    await expect(
      invoke('carol', 'delete-gpu-service', { serviceId: service.id }),
    ).rejects.toMatchObject({
      name: 'NotAllowedError',
      message: expect.stringMatching(/delete GPU service action-made/),
    });
    expect(
      (await output('bob', 'get-gpu-service-status', { serviceId: service.id }))
        .service.status,
    ).not.toBe('deleted');
    const deleted = await output('bob', 'delete-gpu-service', {
      serviceId: service.id,
    });
    expect(deleted.service).toMatchObject({
      id: service.id,
      status: 'deleted',
    });
  });

  it('refuses a request for another team, a bad entity ref or mode, and stores nothing', async () => {
    const before = await idsListedFor('alice');
    await expect(create('carol', 'not-carols')).rejects.toMatchObject({
      name: 'NotAllowedError',
      message: expect.stringMatching(/team ml-platform/),
    });
    await expect(
      invoke('bob', 'create-gpu-service', {
        request: request('bad-ref') as unknown as JsonObject,
        entityRef: 'group:default/ml-platform',
      }),
    ).rejects.toMatchObject({
      name: 'InputError',
      message: expect.stringMatching(/entityRef/),
    });
    await expect(
      invoke('bob', 'create-gpu-service', {
        request: request('other-teams-component') as unknown as JsonObject,
        entityRef: 'component:default/search-ranker',
      }),
    ).rejects.toMatchObject({
      name: 'NotAllowedError',
      message: expect.stringMatching(
        /search-ranker is owned by group:default\/search, not group:default\/ml-platform/,
      ),
    });
    await expect(
      invoke('bob', 'create-gpu-service', {
        request: request('bad-mode') as unknown as JsonObject,
        mode: 'apply',
      }),
    ).rejects.toMatchObject({
      name: 'InputError',
      message: expect.stringMatching(/Invalid mode "apply"/),
    });
    const preview = await output('bob', 'create-gpu-service', {
      request: request('previewed') as unknown as JsonObject,
      dryRun: true,
    });
    expect(preview).toMatchObject({
      created: false,
      service: { id: 'dry-run', name: 'previewed' },
    });
    expect(preview.service.manifests).toBeUndefined();
    expect(await idsListedFor('alice')).toEqual(before);
  });

  it('returns the first service for a retry with the same request key', async () => {
    const body = {
      request: request('keyed') as unknown as JsonObject,
      requestKey: 'agent-run-1',
    };
    const first = await output('bob', 'create-gpu-service', body);
    const retry = await output('bob', 'create-gpu-service', body);
    expect(first.created).toBe(true);
    expect(retry).toMatchObject({
      created: false,
      service: { id: first.service.id },
    });
  });
});
