import { mockServices } from '@backstage/backend-test-utils';
import { NotificationSendOptions } from '@backstage/plugin-notifications-node';
import { ApprovalRecord, ServiceRecord } from '../database';
import { entityPageLink, GpuNotifier } from './GpuNotifier';

const service: ServiceRecord = {
  id: '6b1f4a8e-3f5c-4a1e-9f5e-1d2c3b4a5f60',
  name: 'chat',
  team: 'ml-platform',
  namespace: 'ml-serving',
  entityRef: 'component:default/chat-service',
  environment: 'production',
  tier: 'dedicated',
  pool: 'spot-l4',
  status: 'pending-approval',
  reason: 'AwaitingApproval',
  generation: 1,
  statusChangedAt: '2026-11-01T00:00:00.000Z',
  request: {
    name: 'chat',
    team: 'ml-platform',
    model: 'llama-3.1-8b',
    runtime: 'vllm',
    dtype: 'bf16',
    maxModelLen: 8192,
    concurrency: 16,
    replicas: 1,
    environment: 'production',
  } as ServiceRecord['request'],
  placement: {
    tier: 'dedicated',
    pool: 'spot-l4',
    gpusPerReplica: 1,
  } as ServiceRecord['placement'],
  mode: 'dry-run',
  createdBy: 'user:default/bob',
  createdAt: '2026-01-05T10:00:00.000Z',
  updatedBy: 'user:default/bob',
  updatedAt: '2026-01-05T10:00:00.000Z',
};

const approval: ApprovalRecord = {
  id: 'a1b2c3d4-0000-4000-8000-000000000001',
  serviceId: service.id,
  reservationId: 'r1',
  team: 'ml-platform',
  kind: 'create',
  reasons: [
    { code: 'over-quota', message: 'ml-platform has no quota on spot-l4' },
  ],
  state: 'pending',
  requestedBy: 'user:default/bob',
  requestedAt: '2026-01-05T10:00:00.000Z',
};

function setup(platformGroups = ['group:default/platform-team']) {
  const sent: NotificationSendOptions[] = [];
  const notifications = {
    send: jest.fn(async (options: NotificationSendOptions) => {
      sent.push(options);
    }),
  };
  const signals = { publish: jest.fn(async () => {}) };
  const logger = mockServices.logger.mock();
  const notifier = new GpuNotifier({
    notifications,
    signals,
    logger,
    platformGroups,
  });
  return { notifier, notifications, signals, logger, sent };
}

describe('entityPageLink', () => {
  it("links to the service's entity, else to a component of its name", () => {
    expect(entityPageLink(service)).toBe(
      '/catalog/default/component/chat-service',
    );
    expect(entityPageLink({ ...service, entityRef: 'Component:ml/Chat' })).toBe(
      '/catalog/ml/component/Chat',
    );
    expect(entityPageLink({ ...service, entityRef: undefined })).toBe(
      '/catalog/default/component/chat',
    );
  });
});

describe('GpuNotifier', () => {
  it('tells the approver groups about a pending request, not the requester, linking to the governance page', async () => {
    const { notifier, sent } = setup([
      'group:default/platform-team',
      'group:default/sre',
    ]);
    await notifier.pendingApproval(service, approval);
    expect(sent).toEqual([
      {
        recipients: {
          type: 'entity',
          entityRef: ['group:default/platform-team', 'group:default/sre'],
          excludeEntityRef: 'user:default/bob',
        },
        payload: {
          title: 'GPU request needs approval: chat (ml-platform)',
          description:
            'bob requests chat: llama-3.1-8b, dedicated on spot-l4, 1 replica, production. ' +
            'Why it needs approval: ml-platform has no quota on spot-l4.',
          link: '/gpu',
          severity: 'high',
          topic: 'GPU approvals',
          scope: `gpu-approval:${service.id}`,
          metadata: {
            serviceId: service.id,
            approvalId: approval.id,
            team: 'ml-platform',
          },
        },
      },
    ]);
  });

  it('says a pending change is a change', async () => {
    const { notifier, sent } = setup();
    await notifier.pendingApproval(
      { ...service, status: 'ready' },
      { ...approval, kind: 'change' },
    );
    expect(sent[0].payload.title).toBe(
      'GPU change needs approval: chat (ml-platform)',
    );
    expect(sent[0].payload.description).toMatch(
      /^bob requests a change of chat to llama-3\.1-8b, dedicated on spot-l4/,
    );
  });

  it('tells the requester the decision with approver and comment, and replaces the approvers’ pending notification', async () => {
    const { notifier, sent } = setup();
    await notifier.decided(
      { ...service, status: 'approved' },
      {
        ...approval,
        state: 'approved',
        decidedBy: 'user:default/alice',
        comment: 'for the launch',
      },
    );
    expect(sent).toHaveLength(2);
    const [toRequester, toApprovers] = sent;
    expect(toRequester).toEqual({
      recipients: { type: 'entity', entityRef: 'user:default/bob' },
      payload: {
        title: 'Approved: chat (ml-platform)',
        description:
          'alice approved your request for chat: "for the launch". ' +
          'It is rendered and stored (dry-run: no cluster is configured).',
        link: '/catalog/default/component/chat-service',
        severity: 'normal',
        topic: 'GPU services',
        scope: `gpu-service:${service.id}`,
        metadata: {
          serviceId: service.id,
          approvalId: approval.id,
          team: 'ml-platform',
          decision: 'approved',
          decidedBy: 'user:default/alice',
        },
      },
    });
    expect(toApprovers.recipients).toEqual({
      type: 'entity',
      entityRef: ['group:default/platform-team'],
    });
    expect(toApprovers.payload).toMatchObject({
      title: 'Approved by alice: chat (ml-platform)',
      link: '/gpu',
      severity: 'low',
      topic: 'GPU approvals',
      scope: `gpu-approval:${service.id}`,
    });
  });

  it('tells a rejection with high severity; a request by a service goes to the team', async () => {
    const { notifier, sent } = setup();
    await notifier.decided(
      { ...service, status: 'rejected' },
      {
        ...approval,
        requestedBy: 'service:plugin:scaffolder',
        state: 'rejected',
        decidedBy: 'user:default/alice',
      },
    );
    expect(sent[0].recipients).toEqual({
      type: 'entity',
      entityRef: 'group:default/ml-platform',
    });
    expect(sent[0].payload).toMatchObject({
      title: 'Rejected: chat (ml-platform)',
      description:
        'alice rejected your request for chat. Its quota is released; nothing was deployed.',
      severity: 'high',
      scope: `gpu-service:${service.id}`,
    });
  });

  it('tells the team and the requester a failed apply or teardown, and readiness, in the service’s scope', async () => {
    const { notifier, sent } = setup();
    const applied = { ...service, mode: 'apply' as const, cluster: 'gpu-eu' };
    await notifier.failed({
      ...applied,
      status: 'failed',
      statusReason: 'Forbidden: quota exceeded (quota stays reserved; ...)',
    });
    await notifier.failed({
      ...applied,
      status: 'failed',
      statusReason:
        'Teardown failed: request to https://10.0.0.1:6443/apis failed, reason: connect ECONNREFUSED 10.0.0.1:6443',
    });
    await notifier.ready({ ...applied, status: 'ready' });
    for (const options of sent) {
      expect(options.recipients).toEqual({
        type: 'entity',
        entityRef: ['group:default/ml-platform', 'user:default/bob'],
      });
      expect(options.payload).toMatchObject({
        link: '/catalog/default/component/chat-service',
        topic: 'GPU services',
        scope: `gpu-service:${service.id}`,
      });
    }
    expect(sent.map(s => [s.payload.title, s.payload.severity])).toEqual([
      ['Applying chat (ml-platform) failed', 'high'],
      ['Deleting chat (ml-platform) failed', 'high'],
      ['chat (ml-platform) is ready', 'normal'],
    ]);
    expect(sent[0].payload.description).toBe(
      'Forbidden: quota exceeded (quota stays reserved; ...)',
    );
    expect(sent[1].payload.description).toBe(
      'Teardown failed: request to (address withheld) failed, reason: connect ECONNREFUSED (address withheld)',
    );
    expect(sent[2].payload.description).toBe(
      'llama-3.1-8b, dedicated on spot-l4, 1 replica, production: its Deployment is available in cluster gpu-eu.',
    );
  });

  it('tells the platform groups, the team and the requester that a GitOps pull request expired, linking to it', async () => {
    const { notifier, sent } = setup();
    const url = 'https://git.example.com/ops/gitops/pulls/7';
    await notifier.pullRequestExpired({
      ...service,
      mode: 'gitops',
      status: 'deleted',
      reason: 'PullRequestExpired',
      pullRequest: { url, number: 7, state: 'open' },
    });
    expect(sent).toHaveLength(1);
    expect(sent[0].recipients).toEqual({
      type: 'entity',
      entityRef: [
        'group:default/platform-team',
        'group:default/ml-platform',
        'user:default/bob',
      ],
    });
    expect(sent[0].payload).toMatchObject({
      title: 'Pull request of chat (ml-platform) not merged in time',
      link: url,
      severity: 'high',
      scope: `gpu-service:${service.id}`,
      description: expect.stringContaining(
        'Backstage closed it, deleted the service and released its quota',
      ),
    });
  });

  it('sends one after another, in order, and a failed send is logged, not thrown', async () => {
    const { notifier, notifications, logger } = setup();
    const order: string[] = [];
    let releaseFirst: () => void = () => {};
    notifications.send
      .mockImplementationOnce(async (options: NotificationSendOptions) => {
        await new Promise<void>(resolve => {
          releaseFirst = resolve;
        });
        order.push(options.payload.title);
      })
      .mockImplementationOnce(async () => {
        throw new Error('Request failed with status 404');
      })
      .mockImplementationOnce(async (options: NotificationSendOptions) => {
        order.push(options.payload.title);
      });
    const first = notifier.pendingApproval(service, approval);
    const second = notifier.failed({ ...service, status: 'failed' });
    const third = notifier.ready({ ...service, status: 'ready' });
    await new Promise(resolve => setTimeout(resolve, 10));
    expect(notifications.send).toHaveBeenCalledTimes(1);
    releaseFirst();
    await expect(Promise.all([first, second, third])).resolves.toBeDefined();
    await notifier.flush();
    expect(order).toEqual([
      'GPU request needs approval: chat (ml-platform)',
      'chat (ml-platform) is ready',
    ]);
    expect(logger.warn).toHaveBeenCalledWith(
      'Sending the GPU failure notification failed',
      {
        scope: `gpu-service:${service.id}`,
        error: 'Error: Request failed with status 404',
      },
    );
  });

  it("signals changes on gpu:service-changes to the team's and the platform groups' members only; a failed publish is logged", async () => {
    const { notifier, signals, logger } = setup();
    await notifier.changed({
      kind: 'service',
      change: 'status',
      serviceId: service.id,
      team: 'ml-platform',
      status: 'ready',
    });
    expect(signals.publish).toHaveBeenCalledWith({
      recipients: {
        type: 'user',
        entityRef: ['group:default/ml-platform', 'group:default/platform-team'],
      },
      channel: 'gpu:service-changes',
      message: {
        kind: 'service',
        change: 'status',
        serviceId: service.id,
        team: 'ml-platform',
        status: 'ready',
      },
    });
    signals.publish.mockRejectedValueOnce(new Error('no events'));
    await expect(
      notifier.changed({ kind: 'quota', team: 'search' }),
    ).resolves.toBeUndefined();
    expect(logger.warn).toHaveBeenCalledWith(
      'Publishing a GPU service signal failed',
      { error: 'Error: no events' },
    );
  });
});
