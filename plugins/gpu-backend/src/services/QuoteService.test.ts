import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { ConfigReader } from '@backstage/config';
import {
  demoPlatformConfig,
  readPlatformConfig,
  ServiceRequest,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { Knex } from 'knex';
import { summariserRequest } from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import { DatabaseGpuStore } from '../database';
import { createQuoteService, QUOTE_SNAPSHOT_MAX_AGE_MS } from './QuoteService';
import { seedQuotas } from './seedQuotas';

const databases = TestDatabases.create({ ids: ['SQLITE_3'] });
const platform = readPlatformConfig(
  new ConfigReader({ gpu: demoPlatformConfig }),
);
const request = {
  ...summariserRequest,
  tier: 'dedicated',
  pool: 'l4-ondemand',
} as ServiceRequest;

async function setup() {
  const knex = await databases.init('SQLITE_3');
  const store = await DatabaseGpuStore.create({
    database: mockServices.database({ knex }),
    platform,
  });
  await seedQuotas({ platform, store, logger: mockServices.logger.mock() });
  return {
    knex,
    store,
    quotes: createQuoteService({
      platform,
      store,
      autoscaledReplicas: 'maximum',
    }),
  };
}

/** Counts the reads of `team_quotas` (one per quota read) while `fn` runs. */
async function quotaReads(knex: Knex, fn: () => Promise<unknown>) {
  let reads = 0;
  const count = (q: { sql: string; method: string }) => {
    if (q.method === 'select' && /team_quotas/.test(q.sql)) reads += 1;
  };
  knex.on('query', count);
  try {
    await fn();
  } finally {
    knex.off('query', count);
  }
  return reads;
}

const nominal = (quote: { options: { quota: { nominal: number } }[] }) =>
  quote.options[0].quota.nominal;

describe('createQuoteService', () => {
  afterEach(() => jest.restoreAllMocks());

  it('lets quotes of one team share a quota read', async () => {
    const { knex, quotes } = await setup();
    let results: Awaited<ReturnType<typeof quotes.quote>>[] = [];
    const reads = await quotaReads(knex, async () => {
      results = await Promise.all(
        Array.from({ length: 20 }, () => quotes.quote(request)),
      );
      results.push(await quotes.quote(request));
    });
    expect(reads).toBe(1);
    expect(new Set(results.map(r => JSON.stringify(r))).size).toBe(1);
    expect(results[0].options[0].quota).toMatchObject({ nominal: 4, used: 0 });
  });

  it('reads again after any write through the store', async () => {
    const { knex, store, quotes } = await setup();
    await quotes.quote(request);
    await store.putQuota({
      team: 'ml-platform',
      quota: { pools: { 'l4-ondemand': 9 }, monthlyBudgetMicros: 10 ** 12 },
      actor: 'user:default/admin',
    });
    let after = await quotes.quote(request);
    expect(
      await quotaReads(knex, async () => {
        after = await quotes.quote(request);
      }),
    ).toBe(0);
    expect(nominal(after)).toBe(9);
  });

  it('sees a write by another backend replica once the snapshot is too old', async () => {
    const { knex, quotes } = await setup();
    const otherReplica = await DatabaseGpuStore.create({
      database: mockServices.database({ knex }),
      platform,
    });
    const start = Date.now();
    const now = jest.spyOn(Date, 'now').mockReturnValue(start);
    expect(nominal(await quotes.quote(request))).toBe(4);
    await otherReplica.putQuota({
      team: 'ml-platform',
      quota: { pools: { 'l4-ondemand': 7 }, monthlyBudgetMicros: 10 ** 12 },
      actor: 'user:default/admin',
    });
    now.mockReturnValue(start + QUOTE_SNAPSHOT_MAX_AGE_MS);
    expect(nominal(await quotes.quote(request))).toBe(4);
    now.mockReturnValue(start + QUOTE_SNAPSHOT_MAX_AGE_MS + 1);
    expect(nominal(await quotes.quote(request))).toBe(7);
  });
});
