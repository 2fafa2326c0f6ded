import {
  mockServices,
  startTestBackend,
  TestDatabaseId,
  TestDatabases,
} from '@backstage/backend-test-utils';
import { demoPlatformConfig } from '@gpu-platform/backstage-plugin-gpu-common';
import { devSummariser } from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import { createServer, Server } from 'node:http';
import { AddressInfo, Socket } from 'node:net';
import request from 'supertest';
import { gpuPlugin } from './plugin';
import {
  asUser,
  demoUserInfo,
  realPermissionPolicy,
} from './__testUtils__/demoUsers';
import { containsInternalAddress } from './errors/internalAddresses';

jest.setTimeout(120_000);

/**
 * A cost card against a Prometheus that never answers, on SQLite and PostgreSQL, through the real backend: the
 * card's queries share the request's deadline (gpu.prometheus.requestDeadline 2000 ms, less the 250 ms kept for the
 * answer), are cut there rather than each waiting for its own 2000 ms timeout, and the card answers with allocation
 * cost and the reason, naming no address. Another request's card is not held behind the first one's queries, and
 * the circuit breaker (its threshold above this suite's queries) does not decide for the deadline.
 */
const databases = TestDatabases.create({ ids: ['POSTGRES_15', 'SQLITE_3'] });

/** A Prometheus that accepts every query and never answers; counts the queries and how many are still open. */
async function silentPrometheus() {
  const sockets = new Set<Socket>();
  let queries = 0;
  const server: Server = createServer(req => {
    req.resume();
    queries += 1;
  });
  server.on('connection', socket => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>(ok => server.listen(0, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get queries() {
      return queries;
    },
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise(ok => server.close(ok));
    },
  };
}

describe.each(databases.eachSupportedId())(
  'cost cards with a silent Prometheus on %s',
  (databaseId: TestDatabaseId) => {
    let http: ReturnType<typeof request>;
    let prometheus: Awaited<ReturnType<typeof silentPrometheus>>;
    const ids: string[] = [];

    beforeAll(async () => {
      prometheus = await silentPrometheus();
      const knex = await databases.init(databaseId);
      const { server } = await startTestBackend({
        features: [
          gpuPlugin,
          mockServices.rootConfig.factory({
            data: {
              gpu: {
                ...demoPlatformConfig,
                prometheus: {
                  baseUrl: prometheus.url,
                  timeout: 2000,
                  requestDeadline: 2000,
                  circuitBreaker: { failures: 1000 },
                },
              },
              permission: { enabled: true },
            },
          }),
          mockServices.database.factory({ knex }),
          demoUserInfo(),
          ...realPermissionPolicy(),
        ],
      });
      http = request(server);
      for (const name of ['deadline-a', 'deadline-b']) {
        const created = await http
          .post('/api/gpu/services')
          .set('Authorization', asUser('bob'))
          .send({ request: { ...devSummariser, name } })
          .expect(201);
        ids.push(created.body.id);
      }
      // Held for a moment, so that each card asks Prometheus about its window.
      await new Promise(resolve => setTimeout(resolve, 1100));
    });

    afterAll(() => prometheus?.close());

    it('answers allocation cost with the reason once the deadline cuts the queries, for each card at once', async () => {
      const cards = await Promise.all(
        ids.map(id =>
          http
            .get(`/api/gpu/services/${id}/cost?window=30d`)
            .set('Authorization', asUser('bob')),
        ),
      );
      for (const card of cards) {
        expect(card.status).toBe(200);
        // The card still has its allocation cost, from the database.
        expect(card.body.allocationMicros).toEqual(expect.any(Number));
        // Cut by the request's deadline (1750 ms of its 2000), not ended by each query's own timeout.
        expect(card.body.metrics).toEqual({
          state: 'unavailable',
          reason: expect.stringContaining(
            "Prometheus did not answer within this request's 1750 ms",
          ),
        });
        expect(containsInternalAddress(JSON.stringify(card.body))).toBe(false);
      }
      // Both cards asked Prometheus (neither waited for the other's queries to end before sending its own).
      expect(prometheus.queries).toBeGreaterThanOrEqual(2 * 4);
    });
  },
);
