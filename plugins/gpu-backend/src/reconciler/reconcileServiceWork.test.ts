import { mockServices } from '@backstage/backend-test-utils';
import { NotFoundError } from '@backstage/errors';
import type { ServiceRecord } from '../database';
import { reconcileServiceWork } from './reconcileServiceWork';
import { requeueUnsettledServices } from './requeueUnsettledServices';

const service = (fields: Partial<ServiceRecord>) =>
  ({ id: 's', mode: 'apply', status: 'starting', ...fields } as ServiceRecord);

describe('reconcileServiceWork', () => {
  it('reads the cluster status of a service with nothing to apply, and of no other', async () => {
    const refreshed: string[] = [];
    const statuses = {
      refreshStatus: async (id: string) => {
        refreshed.push(id);
        return { service: service({ id }), changed: false };
      },
    };
    const work = reconcileServiceWork({
      services: {
        reconcile: async id =>
          id === 'in-cluster' ? service({ id }) : undefined,
      },
      statuses,
    });
    await work('applied-now');
    await work('in-cluster');
    expect(refreshed).toEqual(['in-cluster']);
  });

  it('throws when the cluster could not be read, so the queue tries again; a service deleted meanwhile is done', async () => {
    const work = (refresh: () => Promise<unknown>) =>
      reconcileServiceWork({
        services: { reconcile: async id => service({ id }) },
        statuses: { refreshStatus: refresh as any },
      })('s');
    await expect(
      work(async () => ({
        service: service({}),
        changed: false,
        clusterStatus: {
          cluster: 'local',
          observedAt: '2026-12-02T00:00:00Z',
          error: "The cluster 'local' could not be read: connect ECONNREFUSED",
        },
      })),
    ).rejects.toThrow('connect ECONNREFUSED');
    await expect(
      work(async () => {
        throw new NotFoundError('No GPU service with id s');
      }),
    ).resolves.toBeUndefined();
  });
});

describe('requeueUnsettledServices', () => {
  it('queues the services of the cluster that are on their way, in apply mode only', async () => {
    const queued: string[] = [];
    let asked: unknown;
    await requeueUnsettledServices({
      store: {
        listServices: async filter => {
          asked = filter;
          return [
            service({ id: 'a', status: 'applying', cluster: 'local' }),
            service({ id: 'b', status: 'deleting', cluster: 'other' }),
            service({ id: 'c', status: 'starting', mode: 'gitops' }),
            service({ id: 'd', status: 'starting', cluster: 'local' }),
          ];
        },
      },
      enqueue: id => queued.push(id),
      cluster: 'local',
      logger: mockServices.logger.mock(),
    });
    expect(asked).toEqual({ status: ['applying', 'deleting', 'starting'] });
    expect(queued).toEqual(['a', 'd']);
  });

  it('never rejects when the store cannot be read', async () => {
    const logger = mockServices.logger.mock();
    await expect(
      requeueUnsettledServices({
        store: {
          listServices: async () => {
            throw new Error('Connection terminated');
          },
        },
        enqueue: () => undefined,
        cluster: 'local',
        logger,
      }),
    ).resolves.toBeUndefined();
    expect(logger.warn).toHaveBeenCalled();
  });
});
