import { AuditEventView } from '@gpu-platform/backstage-plugin-gpu-common';
import { actorName, describeAuditEvent } from './describeAuditEvent';

const summariser = {
  id: '6f1c1a52-4b8e-4c55-9d1e-2f0a8f3b7c11',
  name: 'summariser',
  namespace: 'ml-serving',
  entityRef: 'component:default/summariser',
};

function event(overrides: Partial<AuditEventView>): AuditEventView {
  return {
    id: '1',
    at: '2026-11-29T10:00:00.000Z',
    actor: 'user:default/alice',
    action: 'service.create',
    subjectType: 'service',
    subjectId: summariser.id,
    team: 'ml-platform',
    ...overrides,
  };
}

const sentence = (e: AuditEventView) => {
  const s = describeAuditEvent(e);
  return `${s.lead}[${s.subject}${s.entityRef ? ` -> ${s.entityRef}` : ''}]${
    s.tail
  }`;
};

describe('describeAuditEvent', () => {
  it('names who created which service, linked to its entity', () => {
    expect(
      sentence(
        event({
          service: summariser,
          after: { name: 'summariser', status: 'approved' },
        }),
      ),
    ).toBe(
      'alice created service [summariser -> component:default/summariser] (team ml-platform), status approved.',
    );
  });

  it('says how a status moved, with the reason', () => {
    expect(
      sentence(
        event({
          action: 'service.status',
          actor: 'plugin:gpu',
          service: summariser,
          before: { status: 'applying' },
          after: { status: 'failed', statusReason: 'quota exceeded' },
        }),
      ),
    ).toBe(
      'plugin:gpu moved [summariser -> component:default/summariser] (team ml-platform) from applying to failed: quota exceeded.',
    );
  });

  it("names the backend's own actors in words, not by their ids", () => {
    expect(
      sentence(
        event({
          action: 'service.status',
          actor: 'system:gpu-status-refresh',
          service: summariser,
          before: { status: 'starting' },
          after: { status: 'ready' },
        }),
      ),
    ).toBe(
      'the status refresh moved [summariser -> component:default/summariser] (team ml-platform) from starting to ready.',
    );
    expect(
      sentence(
        event({
          action: 'quota.put',
          actor: 'config:app-config',
          subjectType: 'quota',
          subjectId: 'search',
          team: 'search',
          after: { pools: {}, monthlyBudgetMicros: 1_000_000 },
        }),
      ),
    ).toMatch(/^the platform config \(app-config\.yaml\) set the quota of /);
  });

  it('names every task of the backend in words, one it does not list too', () => {
    expect(actorName('system:gpu-batch-release')).toBe(
      'the release of finished batch jobs',
    );
    expect(actorName('system:gpu-cluster-move')).toBe(
      'the move between clusters',
    );
    expect(actorName('system:gpu-gitops-follow')).toBe(
      'the follow-up of GitOps pull requests',
    );
    expect(actorName('system:gpu-some-new-task')).toBe(
      'the gpu backend (some new task)',
    );
    expect(actorName('user:default/alice')).toBe('alice');
    expect(actorName('plugin:gpu')).toBe('plugin:gpu');
  });

  it('says what a change of a service changed, not its whole record', () => {
    expect(
      sentence(
        event({
          action: 'service.change',
          service: summariser,
          before: {
            request: { model: 'llama-3.1-8b', replicas: 1 },
            placement: { tier: 'dedicated', pool: 'l4-ondemand' },
            updatedAt: 'a',
          },
          after: {
            request: { model: 'llama-3.1-8b', replicas: 2 },
            placement: { tier: 'dedicated', pool: 'l4-ondemand' },
            updatedAt: 'b',
          },
        }),
      ),
    ).toBe(
      'alice changed [summariser -> component:default/summariser] (team ml-platform): replicas: 1 -> 2.',
    );
  });

  it('names the service of a reservation and of an approval, with amounts, reasons and comments', () => {
    expect(
      sentence(
        event({
          action: 'reservation.hold',
          subjectType: 'reservation',
          subjectId: 'r1',
          service: summariser,
          after: {
            serviceId: summariser.id,
            pool: 'l4-ondemand',
            gpuEquivalents: 2,
            monthlyCostMicros: 1_175_000_000,
          },
        }),
      ),
    ).toBe(
      'alice held 2 GPU-equivalents on l4-ondemand ($1,175.00 a month) for [summariser -> component:default/summariser] (team ml-platform).',
    );
    expect(
      sentence(
        event({
          action: 'approval.request',
          actor: 'user:default/bob',
          subjectType: 'approval',
          subjectId: 'a1',
          service: { ...summariser, entityRef: undefined },
          after: {
            serviceId: summariser.id,
            reasons: [{ code: 'over-quota', message: 'over quota on h100' }],
          },
        }),
      ),
    ).toBe(
      'bob asked for approval of [summariser] (team ml-platform): over quota on h100.',
    );
    expect(
      sentence(
        event({
          action: 'approval.approve',
          subjectType: 'approval',
          subjectId: 'a1',
          service: summariser,
          after: { comment: 'launch week', overage: { overQuota: true } },
        }),
      ),
    ).toBe(
      'alice approved the request for [summariser -> component:default/summariser] (team ml-platform), beyond quota or budget: "launch week".',
    );
  });

  it('says when the service of an event is gone, and names teams and batch jobs', () => {
    expect(
      sentence(
        event({
          action: 'reservation.release',
          subjectType: 'reservation',
          subjectId: 'r1',
          before: { gpuEquivalents: 1, pool: 'h100' },
        }),
      ),
    ).toBe(
      'alice released 1 GPU-equivalent on h100 for [a deleted service] (team ml-platform).',
    );
    expect(
      sentence(
        event({
          action: 'quota.put',
          subjectType: 'quota',
          subjectId: 'search',
          team: 'search',
          after: {
            pools: { 'l4-ondemand': 3, h100: 0.5 },
            monthlyBudgetMicros: 4_000_000_000,
          },
        }),
      ),
    ).toBe(
      'alice set the quota of team [search]: l4-ondemand 3, h100 0.5, budget $4,000.00 a month.',
    );
    expect(
      sentence(
        event({
          action: 'batch-job.submit',
          subjectType: 'batch-job',
          subjectId: 'j1',
          after: { name: 'ocr-nightly', pool: 'l4-ondemand', mode: 'dry-run' },
        }),
      ),
    ).toBe(
      'alice submitted batch job [ocr-nightly] (team ml-platform) on pool l4-ondemand (dry-run).',
    );
  });
});
