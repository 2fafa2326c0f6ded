import { createServiceFactory } from '@backstage/backend-plugin-api';
import { actionsRegistryServiceRef } from '@backstage/backend-plugin-api/alpha';
import {
  mockCredentials,
  mockServices,
  startTestBackend,
  TestDatabaseId,
  TestDatabases,
} from '@backstage/backend-test-utils';
import { actionsRegistryServiceMock } from '@backstage/backend-test-utils/alpha';
import { catalogServiceMock } from '@backstage/plugin-catalog-node/testUtils';
import { JsonObject } from '@backstage/types';
import { demoPlatformConfig } from '@gpu-platform/backstage-plugin-gpu-common';
import { devSummariser } from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import request from 'supertest';
import { gpuPlugin } from './plugin';
import { spec } from './schema/openapi/generated/router';
import {
  badActionInputs,
  badInputs,
  FuzzCase,
} from './__testUtils__/badInputs';
import {
  asUser,
  demoUserInfo,
  realPermissionPolicy,
  userRef,
} from './__testUtils__/demoUsers';

jest.setTimeout(600_000);

/**
 * A fuzz run over every route of src/schema/openapi.yaml and every gpu action (the MCP tools), on SQLite and
 * PostgreSQL: bad inputs generated from the schemas (NUL characters, huge and negative numbers, wrong types,
 * oversized strings and bodies, bad cursors), as a platform team member and as a team member. No answer may be a
 * 5xx or name an internal address; an action may only fail with one of Backstage's known errors, which the MCP
 * actions backend turns into a tool result (any other error fails the MCP call itself).
 */
const databases = TestDatabases.create({ ids: ['POSTGRES_15', 'SQLITE_3'] });

/** Bad requests per operation and bad inputs per action; the run stays within a minute or two per database. */
const MAX_PER_OPERATION = 60;
const MAX_PER_ACTION = 80;

/** Addresses of the backend's infrastructure and socket errors, as they would leak into an answer. */
const INTERNAL_ADDRESS =
  /(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?![\w.])|\blocalhost\b|\[::1?\]|ECONNREFUSED|ETIMEDOUT|EHOSTUNREACH|:5432\b/;

/** The errors the MCP actions backend answers as tool results (its handleErrors). */
const MCP_KNOWN_ERRORS = new Set([
  'InputError',
  'AuthenticationError',
  'NotAllowedError',
  'NotFoundError',
  'ConflictError',
  'NotModifiedError',
  'NotImplementedError',
  'ResponseError',
  'ServiceUnavailableError',
]);

const USERS = ['alice', 'bob'] as const;

describe.each(databases.eachSupportedId())(
  'fuzz run on %s',
  (databaseId: TestDatabaseId) => {
    const registry = actionsRegistryServiceMock();
    let http: ReturnType<typeof request>;
    let serviceId: string;

    beforeAll(async () => {
      const knex = await databases.init(databaseId);
      const { server } = await startTestBackend({
        features: [
          gpuPlugin,
          createServiceFactory({
            service: actionsRegistryServiceRef,
            deps: {},
            factory: () => registry,
          }),
          mockServices.rootConfig.factory({
            data: { gpu: demoPlatformConfig, permission: { enabled: true } },
          }),
          mockServices.database.factory({ knex }),
          // The teams' groups, which the cost export rolls costs up through.
          catalogServiceMock.factory({
            entities: ['ml-platform', 'search'].map(name => ({
              apiVersion: 'backstage.io/v1alpha1',
              kind: 'Group',
              metadata: { name, namespace: 'default' },
              spec: { type: 'team', children: [] },
            })),
          }),
          demoUserInfo(),
          ...realPermissionPolicy(),
        ],
      });
      http = request(server);
      const created = await http
        .post('/api/gpu/services')
        .set('Authorization', asUser('bob'))
        .send({ request: { ...devSummariser, name: 'fuzzed' } })
        .expect(201);
      serviceId = created.body.id;
    });

    function send(c: FuzzCase, user: string): request.Test {
      const call = http[c.method](`/api/gpu${c.path}`)
        .query(c.query)
        .set('Authorization', asUser(user));
      if (c.rawBody !== undefined) {
        return call.set('Content-Type', 'application/json').send(c.rawBody);
      }
      return c.body === undefined ? call : call.send(c.body as object);
    }

    it('answers every bad request of every route with a 2xx or 4xx, naming no internal address', async () => {
      const cases = badInputs(
        spec,
        {
          id: serviceId,
          team: 'ml-platform',
          namespace: 'ml-platform',
          name: 'fuzzed',
        },
        MAX_PER_OPERATION,
      );
      const failures: string[] = [];
      const statuses = new Map<number, number>();
      for (const [i, c] of cases.entries()) {
        const user = USERS[i % USERS.length];
        const res = await send(c, user);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status >= 500) {
          failures.push(
            `${c.method.toUpperCase()} ${c.route} (${c.what}) as ${user}: ${
              res.status
            } ${res.text.slice(0, 300)}`,
          );
        } else if (INTERNAL_ADDRESS.test(res.text)) {
          failures.push(
            `${c.method.toUpperCase()} ${c.route} (${c.what}) as ${user} names an address: ${res.text.slice(0, 300)}`,
          );
        }
      }
      expect(failures).toEqual([]);
      // Every operation was reached, and the run was mostly refusals.
      expect(new Set(cases.map(c => `${c.method} ${c.route}`)).size).toBe(
        Object.values(spec.paths).reduce(
          (n, item) =>
            n +
            ['get', 'post', 'put', 'patch', 'delete'].filter(m => m in item)
              .length,
          0,
        ),
      );
      expect(cases.length).toBeGreaterThan(500);
      expect(statuses.get(400)).toBeGreaterThan(cases.length / 2);
    });

    it('fails every bad input of every action with an error an MCP client reads, naming no internal address', async () => {
      const { actions } = await registry.list();
      expect(actions.length).toBe(8);
      const failures: string[] = [];
      let calls = 0;
      for (const action of actions) {
        const cases = badActionInputs(
          action.name,
          action.schema.input as JsonObject,
          MAX_PER_ACTION,
        );
        for (const [i, c] of cases.entries()) {
          const user = USERS[i % USERS.length];
          calls += 1;
          try {
            const { output } = await registry.invoke({
              id: action.id,
              input: c.input as JsonObject,
              credentials: mockCredentials.user(userRef(user)),
            });
            if (INTERNAL_ADDRESS.test(JSON.stringify(output))) {
              failures.push(`${c.action} (${c.what}) names an address`);
            }
          } catch (error) {
            const { name, message } = error as Error;
            if (!MCP_KNOWN_ERRORS.has(name)) {
              failures.push(`${c.action} (${c.what}) as ${user}: ${name}: ${message.slice(0, 300)}`);
            } else if (INTERNAL_ADDRESS.test(message)) {
              failures.push(`${c.action} (${c.what}) names an address: ${message.slice(0, 300)}`);
            }
          }
        }
      }
      expect(failures).toEqual([]);
      expect(calls).toBeGreaterThan(300);
    });
  },
);
