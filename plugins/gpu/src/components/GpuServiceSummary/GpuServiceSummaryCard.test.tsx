import { Entity } from '@backstage/catalog-model';
import {
  createExtensionTester,
  renderInTestApp,
  TestApiProvider,
} from '@backstage/frontend-test-utils';
import { EntityProvider } from '@backstage/plugin-catalog-react';
import { EntityCardBlueprint } from '@backstage/plugin-catalog-react/alpha';
import {
  formatUsd,
  GpuServiceView,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { configure, screen } from '@testing-library/react';
import { gpuApiRef } from '../../api';
import { FakeGpuApi } from '../../__testUtils__/FakeGpuApi';
import {
  summariserCost,
  summariserService,
  summariserUsage,
} from '../../__testUtils__/gpuFixtures';
import { gpuServiceSummaryEntityCard } from '../../plugin';
import { GpuServiceSummaryCard } from './GpuServiceSummaryCard';

jest.setTimeout(30_000);
configure({ asyncUtilTimeout: 10_000 });

const service = summariserService({ status: 'ready', mode: 'apply' });

function entity(id = service.id): Entity {
  return {
    apiVersion: 'backstage.io/v1alpha1',
    kind: 'Component',
    metadata: {
      name: 'summariser',
      annotations: { 'gpu.backstage.io/service-id': id },
    },
  };
}

async function renderSummary(api: FakeGpuApi, e: Entity = entity()) {
  await renderInTestApp(
    <TestApiProvider apis={[[gpuApiRef, api]]}>
      <EntityProvider entity={e}>
        <GpuServiceSummaryCard />
      </EntityProvider>
    </TestApiProvider>,
  );
}

function backend(svc: GpuServiceView) {
  const api = new FakeGpuApi();
  api.services.set(svc.id, svc);
  api.cost = async () => ({
    ...summariserCost(summariserUsage()),
    accrualBasis: 'cluster-status',
  });
  return api;
}

describe('GpuServiceSummaryCard', () => {
  it('is an info card (top of the overview) shown only on entities naming a gpu service', () => {
    const tester = createExtensionTester(gpuServiceSummaryEntityCard);
    expect(tester.get(EntityCardBlueprint.dataRefs.type)).toBe('info');
    const filter = tester.get(EntityCardBlueprint.dataRefs.filterFunction)!;
    expect(filter(entity())).toBe(true);
    expect(filter({ ...entity(), metadata: { name: 'x' } })).toBe(false);
  });

  it('shows tier, pool, status and the month-to-date cost', async () => {
    const api = backend(service);
    await renderSummary(api);
    const cost = summariserCost(summariserUsage());
    expect(await screen.findByTestId('summary-tier')).toHaveTextContent(
      'dedicated',
    );
    expect(screen.getByTestId('summary-pool')).toHaveTextContent('l4-ondemand');
    expect(screen.getByTestId('summary-status')).toHaveTextContent('ready');
    expect(screen.getByTestId('summary-month-to-date')).toHaveTextContent(
      formatUsd(cost.monthToDate.allocationMicros),
    );
    expect(api.callsOf('getServiceUsage')).toHaveLength(0);
  });

  it('says a dry run reserves and runs nothing', async () => {
    const api = backend(summariserService());
    api.cost = async () => ({
      ...summariserCost(summariserUsage()),
      accrualBasis: 'dry-run',
      monthToDate: {
        ...summariserCost(summariserUsage()).monthToDate,
        allocationMicros: 0,
      },
    });
    await renderSummary(api);
    expect(
      await screen.findByTestId('summary-month-to-date'),
    ).toHaveTextContent(
      /^Cost month-to-date\$0\.00dry run: \$587\.50 a month reserved, nothing running$/,
    );
    expect(screen.getByTestId('summary-status')).toHaveTextContent(
      'approved (dry run, no cluster)',
    );
  });

  it('says a request waiting for approval holds nothing, without reading its cost', async () => {
    const api = backend({ ...service, status: 'pending-approval' });
    await renderSummary(api);
    expect(await screen.findByTestId('summary-status')).toHaveTextContent(
      'Waiting for approval',
    );
    expect(screen.getByTestId('summary-status')).toHaveTextContent(
      'Nothing is held yet',
    );
    expect(screen.getByTestId('summary-month-to-date')).toHaveTextContent(
      '$0.00nothing held',
    );
    expect(api.callsOf('getServiceCost')).toHaveLength(0);
  });

  it('keeps the placement when the cost cannot be read, and says why', async () => {
    const api = backend(service);
    api.cost = async () => {
      throw new Error('cost route down');
    };
    await renderSummary(api);
    expect(
      await screen.findByTestId('summary-month-to-date'),
    ).toHaveTextContent('Could not load the cost: cost route down');
    expect(screen.getByTestId('summary-pool')).toHaveTextContent('l4-ondemand');
  });

  it('says when the annotation names no service', async () => {
    await renderSummary(new FakeGpuApi(), entity('gone'));
    expect(await screen.findByTestId('service-not-found')).toHaveTextContent(
      'No GPU service with id gone',
    );
  });
});
