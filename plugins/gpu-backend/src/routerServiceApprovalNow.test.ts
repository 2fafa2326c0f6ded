import {
  mockServices,
  startTestBackend,
  TestDatabaseId,
  TestDatabases,
} from '@backstage/backend-test-utils';
import { demoPlatformConfig } from '@gpu-platform/backstage-plugin-gpu-common';
import { summariserRequest } from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import request from 'supertest';
import { DatabaseGpuStore } from './database/DatabaseGpuStore';
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
 * current quota, while the audit trail keeps what was recorded with the request. The list of services, the service
 * of each listed approval and the answers of a request and a change say the same, a page weighed on one read. On
 * SQLite and PostgreSQL.
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
      // The answer of the request is weighed as GET weighs it (the quote's own quota words give way to admission's).
      expect(created.approval.reasons).toEqual(before.approval.reasons);
      expect(created.statusReason).toBe(before.statusReason);
      expect(created.conditions).toEqual(before.conditions);

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

      // The list of services and the approvals list's service say the same as GET /services/:id.
      const listed = (
        await request(server)
          .get('/api/gpu/services')
          .query({ team: 'ml-platform' })
          .set('Authorization', asUser('bob'))
          .expect(200)
      ).body.items.find((s: any) => s.id === created.id);
      // The overage is computed at each read (its computedAt and month projection move with the clock).
      const weighed = (approval: any) => ({
        id: approval.id,
        state: approval.state,
        reasons: approval.reasons,
        overQuota: approval.overage.overQuota,
      });
      expect(weighed(listed.approval)).toEqual(weighed(now.approval));
      expect(listed.statusReason).toBe(now.statusReason);
      expect(listed.conditions).toEqual(now.conditions);
      const item = (
        await request(server)
          .get('/api/gpu/approvals')
          .query({ state: 'pending' })
          .set('Authorization', asUser('alice'))
          .expect(200)
      ).body.items.find((a: any) => a.id === created.approval.id);
      expect(weighed(item)).toEqual(weighed(now.approval));
      expect(weighed(item.service.approval)).toEqual(weighed(now.approval));
      expect(item.service.statusReason).toBe(now.statusReason);
      expect(item.service.conditions).toEqual(now.conditions);

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
      expect(requested.after.reasons).toContainEqual(overQuota);
      const [creation] = await audit(created.id, 'service.create');
      expect(creation.after.statusReason).toContain(overQuota.message);
    });

    it('weighs a page of services or approvals in one go, as GET /services/:id weighs each; a change answers the same', async () => {
      const server = await start();
      await lowerMlPlatformL4Quota(server);
      const waiting = await requestBeyondL4Quota(server, 'waits-to-start');
      const running = (
        await request(server)
          .post('/api/gpu/services')
          .send({
            request: {
              ...summariserRequest,
              name: 'waits-to-grow',
              tier: 'dedicated',
              pool: 'l4-ondemand',
              replicas: 1,
            },
          })
          .expect(201)
      ).body;
      expect(running.approval).toBeUndefined();
      const changed = (
        await request(server)
          .patch(`/api/gpu/services/${running.id}`)
          .send({ replicas: 3 })
          .expect(200)
      ).body;
      expect(changed.approval).toMatchObject({
        state: 'pending',
        kind: 'change',
      });
      const read = async (id: string) =>
        (
          await request(server)
            .get(`/api/gpu/services/${id}`)
            .set('Authorization', asUser('bob'))
            .expect(200)
        ).body;
      // The change's answer says what GET says next.
      expect(changed.approval.reasons).toEqual(
        (await read(running.id)).approval.reasons,
      );

      const weigh = jest.spyOn(DatabaseGpuStore.prototype, 'previewApprovals');
      try {
        await setMlPlatformL4Quota(server, 8);
        const now = new Map([
          [waiting.id, await read(waiting.id)],
          [running.id, await read(running.id)],
        ]);
        for (const service of now.values()) {
          expect(service.approval).toMatchObject({
            state: 'pending',
            reasons: [],
          });
        }
        const pendingIds = [...now.values()].map(s => s.approval.id).sort();

        weigh.mockClear();
        const listed = (
          await request(server)
            .get('/api/gpu/services')
            .query({ team: 'ml-platform' })
            .set('Authorization', asUser('bob'))
            .expect(200)
        ).body.items;
        // One weighing (one read of the ledger) for the page's pending approvals.
        expect(weigh).toHaveBeenCalledTimes(1);
        expect(
          weigh.mock.calls[0][0]
            .filter(a => a.state === 'pending')
            .map(a => a.id)
            .sort(),
        ).toEqual(pendingIds);
        for (const [id, service] of now) {
          const item = listed.find((s: any) => s.id === id);
          expect(item.approval.reasons).toEqual(service.approval.reasons);
          expect(item.statusReason).toBe(service.statusReason);
          expect(item.conditions).toEqual(service.conditions);
        }

        weigh.mockClear();
        const approvals = (
          await request(server)
            .get('/api/gpu/approvals')
            .query({ state: 'pending' })
            .set('Authorization', asUser('alice'))
            .expect(200)
        ).body.items;
        expect(weigh).toHaveBeenCalledTimes(1);
        expect(approvals.map((a: any) => a.id).sort()).toEqual(pendingIds);
        for (const approval of approvals) {
          const service = now.get(approval.serviceId);
          expect(approval.reasons).toEqual(service.approval.reasons);
          expect(approval.service.approval.reasons).toEqual(
            service.approval.reasons,
          );
          expect(approval.service.statusReason).toBe(service.statusReason);
          expect(approval.service.conditions).toEqual(service.conditions);
        }
      } finally {
        weigh.mockRestore();
      }
    });
  },
);
