import { createServiceFactory } from '@backstage/backend-plugin-api';
import {
  mockCredentials,
  mockServices,
  startTestBackend,
} from '@backstage/backend-test-utils';
import {
  NotificationSendOptions,
  notificationService,
} from '@backstage/plugin-notifications-node';
import {
  SignalPayload,
  signalsServiceRef,
} from '@backstage/plugin-signals-node';
import { demoPlatformConfig } from '@gpu-platform/backstage-plugin-gpu-common';
import { summariserRequest } from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import request from 'supertest';
import { gpuPlugin } from '../plugin';
import { userInGroups } from '../__testUtils__/userInGroups';
import { databaseClosedOnShutdown } from '../testUtils/databaseClosedOnShutdown';

// Each test boots a backend; on a busy 2-core machine that passes the default 5 s.
jest.setTimeout(30_000);

/**
 * The plugin with fakes of the notifications and signals services: what the routes' changes send, to whom, through
 * the store every caller writes through (see notifyingStore).
 */
async function start() {
  const sent: NotificationSendOptions[] = [];
  const signals: SignalPayload[] = [];
  const { server } = await startTestBackend({
    features: [
      databaseClosedOnShutdown,
      gpuPlugin,
      mockServices.rootConfig.factory({
        data: {
          gpu: demoPlatformConfig,
        },
      }),
      userInGroups(['ml-platform', 'platform-team']),
      createServiceFactory({
        service: notificationService,
        deps: {},
        factory: () => ({
          send: async (options: NotificationSendOptions) => {
            sent.push(options);
          },
        }),
      }),
      createServiceFactory({
        service: signalsServiceRef,
        deps: {},
        factory: () => ({
          publish: async (signal: SignalPayload<any>) => {
            signals.push(signal);
          },
        }),
      }),
    ],
  });
  return { server, sent, signals };
}

/** Notifications are sent in the background: wait for the expected number. */
async function eventually<T>(read: () => T[], count: number): Promise<T[]> {
  for (let i = 0; i < 100 && read().length < count; i++) {
    await new Promise(resolve => setTimeout(resolve, 20));
  }
  return read();
}

const requester = mockCredentials.user().principal.userEntityRef;
const alice = 'user:default/alice';

describe('notifications and signals of the gpu plugin', () => {
  it('tells approvers of a pending request and the requester of the decision; signals every change', async () => {
    const { server, sent, signals } = await start();
    const big = {
      ...summariserRequest,
      name: 'big',
      tier: 'dedicated',
      // ml-platform has no quota on spot-l4 (6 nodes x 1 GPU): over quota, within the pool's physical capacity.
      pool: 'spot-l4',
      replicas: 2,
    };
    const pending = await request(server)
      .post('/api/gpu/services')
      .send({ request: big, entityRef: 'component:default/big' })
      .expect(201);
    expect(pending.body.status).toBe('pending-approval');

    const [toApprovers] = await eventually(() => sent, 1);
    expect(toApprovers.recipients).toEqual({
      type: 'entity',
      entityRef: ['group:default/platform-team'],
      excludeEntityRef: requester,
    });
    expect(toApprovers.payload).toMatchObject({
      title: 'GPU request needs approval: big (ml-platform)',
      link: '/gpu',
      severity: 'high',
      topic: 'GPU approvals',
      scope: `gpu-approval:${pending.body.id}`,
    });
    expect(toApprovers.payload.description).toMatch(
      /^mock requests big: .*Why it needs approval: .*GPU-equivalents/,
    );
    // (Seeding the quotas at start-up signalled those first.)
    const serviceSignals = () =>
      signals.filter(s => (s.message as { kind: string }).kind === 'service');
    expect(serviceSignals().map(s => s.message)).toEqual([
      {
        kind: 'service',
        change: 'created',
        serviceId: pending.body.id,
        team: 'ml-platform',
        status: 'pending-approval',
      },
    ]);
    // To the team's members and the platform team's, never broadcast.
    expect(serviceSignals()[0]).toMatchObject({
      channel: 'gpu:service-changes',
      recipients: {
        type: 'user',
        entityRef: ['group:default/ml-platform', 'group:default/platform-team'],
      },
    });

    const approvals = await request(server)
      .get('/api/gpu/approvals?state=pending')
      .set('Authorization', mockCredentials.user.header(alice))
      .expect(200);
    await request(server)
      .post(`/api/gpu/approvals/${approvals.body.items[0].id}/approve`)
      .set('Authorization', mockCredentials.user.header(alice))
      .send({ comment: 'launch week', allowOverQuota: true })
      .expect(200);

    const all = await eventually(() => sent, 3);
    expect(all).toHaveLength(3);
    const decision = all.find(
      s => s.payload.scope === `gpu-service:${pending.body.id}`,
    )!;
    expect(decision.recipients).toEqual({
      type: 'entity',
      entityRef: requester,
    });
    expect(decision.payload).toMatchObject({
      title: 'Approved: big (ml-platform)',
      link: '/catalog/default/component/big',
      topic: 'GPU services',
    });
    expect(decision.payload.description).toMatch(
      /^alice approved your request for big: "launch week"\./,
    );
    const outcome = all.find(
      s =>
        s !== toApprovers &&
        s.payload.scope === `gpu-approval:${pending.body.id}`,
    )!;
    expect(outcome.payload.title).toBe('Approved by alice: big (ml-platform)');

    // The decision and the deploy that follows (dry-run: approved again, with the manifests).
    expect(
      serviceSignals()
        .slice(1)
        .map(s => {
          const { change, status } = s.message as {
            change: string;
            status: string;
          };
          return [change, status];
        }),
    ).toEqual([
      ['approval', 'approved'],
      ['status', 'approved'],
    ]);
  });

  it('signals quota changes', async () => {
    const { server, signals } = await start();
    const before = signals.length;
    await request(server)
      .put('/api/gpu/teams/search/quota')
      .send({ pools: { 'l4-ondemand': 3 }, monthlyBudget: '5000' })
      .expect(200);
    await eventually(() => signals, before + 1);
    expect(signals.slice(before).map(s => s.message)).toEqual([
      { kind: 'quota', team: 'search' },
    ]);
  });
});
