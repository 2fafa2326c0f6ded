import {
  mockServices,
  startTestBackend,
  TestDatabaseId,
  TestDatabases,
} from '@backstage/backend-test-utils';
import { demoPlatformConfig } from '@gpu-platform/backstage-plugin-gpu-common';
import request from 'supertest';
import { gpuPlugin } from './plugin';
import {
  asUser,
  DEMO_USERS,
  demoUserInfo,
  realPermissionPolicy,
} from './__testUtils__/demoUsers';
import {
  lowerMlPlatformL4Quota,
  requestBeyondL4Quota,
  setMlPlatformL4Quota,
} from './__testUtils__/requestsBeyondQuota';

jest.setTimeout(120_000);

/**
 * GET /services/:id of a service waiting for approval says why it needs an approver now, as GET /approvals lists it
 * (issue 25: reasons stale after a quota change): its approval's reasons and its status line are weighed again on the
 * current quota, while the audit trail keeps what was recorded with the request. On SQLite and PostgreSQL.
 */
const databases = TestDatabases.create({ ids: ['POSTGRES_15', 'SQLITE_3'] });

describe.each(databases.eachSupportedId())(
  'GET /services/:id of a pending request on %s',
  (databaseId: TestDatabaseId) => {
    async function start() {
      const knex = await databases.init(databaseId);
      const { server } = await startTestBackend({
        features: [
          gpuPlugin,
          mockServices.rootConfig.factory({
            data: {
              gpu: demoPlatformConfig,
              permission: { enabled: true },
            },
          }),
          mockServices.database.factory({ knex }),
          // Requests without an Authorization header come from a member of ml-platform.
          demoUserInfo({ ...DEMO_USERS, mock: ['ml-platform'] }),
          ...realPermissionPolicy(),
        ],
      });
      return server;
    }

    it('drops the over-quota reason from the approval and the status line once the quota is raised; the audit trail keeps it', async () => {
      const server = await start();
      await lowerMlPlatformL4Quota(server);
      const created = await requestBeyondL4Quota(server, 'waits-for-quota');
      const overQuota = {
        code: 'over-quota',
        message:
          "Team 'ml-platform' asks for 3 GPU-equivalents in pool 'l4-ondemand' but only 2 of 2 are free",
      };
      expect(created).toMatchObject({
        status: 'pending-approval',
        reason: 'AwaitingApproval',
        approval: { state: 'pending', kind: 'create' },
      });
      expect(created.approval.reasons).toContainEqual(overQuota);
      expect(created.statusReason).toContain(overQuota.message);

      const read = async () =>
        (
          await request(server)
            .get(`/api/gpu/services/${created.id}`)
            .set('Authorization', asUser('bob'))
            .expect(200)
        ).body;
      const before = await read();
      expect(before.approval.reasons).toEqual([overQuota]);
      expect(before.statusReason).toBe(overQuota.message);

      // The platform team raises ml-platform's L4 quota: the request now fits, and only waits for a decision.
      await setMlPlatformL4Quota(server, 8);
      const now = await read();
      expect(now).toMatchObject({
        id: created.id,
        status: 'pending-approval',
        reason: 'AwaitingApproval',
        approval: {
          id: created.approval.id,
          state: 'pending',
          reasons: [],
          overage: { overQuota: false },
        },
      });
      expect(now.statusReason).not.toMatch(/free|left|quota of/);
      expect(now.statusReason).toMatch(/Within quota/);
      // The conditions carry the same status line.
      const approved = now.conditions.find((c: any) => c.type === 'Approved');
      expect(approved).toMatchObject({
        status: 'False',
        reason: 'AwaitingApproval',
        message: now.statusReason,
      });

      // The record is as it was: the approval's request and the service's creation in the audit trail.
      const audit = async (subjectId: string, action: string) =>
        (
          await request(server)
            .get('/api/gpu/audit')
            .query({ subjectId, action })
            .set('Authorization', asUser('alice'))
            .expect(200)
        ).body.items;
      const [requested] = await audit(created.approval.id, 'approval.request');
      expect(requested.after.reasons).toEqual(created.approval.reasons);
      expect(requested.after.reasons).toContainEqual(overQuota);
      const [creation] = await audit(created.id, 'service.create');
      expect(creation.after.statusReason).toBe(created.statusReason);
    });
  },
);
