import { Entity } from '@backstage/catalog-model';
import { coreExtensionData } from '@backstage/frontend-plugin-api';
import {
  createExtensionTester,
  renderInTestApp,
  TestApiProvider,
} from '@backstage/frontend-test-utils';
import { EntityProvider } from '@backstage/plugin-catalog-react';
import { EntityContentBlueprint } from '@backstage/plugin-catalog-react/alpha';
import { permissionApiRef } from '@backstage/plugin-permission-react';
import {
  mockApis as legacyMockApis,
  renderInTestApp as renderLegacy,
} from '@backstage/test-utils';
import { configure, screen } from '@testing-library/react';
import { gpuApiRef } from '../../api';
import { FakeGpuApi } from '../../__testUtils__/FakeGpuApi';
import {
  appliedSummariser,
  KUEUE_QUOTA_WORDS,
  pendingAdmissionStatus,
  summariserCost,
  summariserService,
  summariserUsage,
} from '../../__testUtils__/gpuFixtures';
import { EntityGpuContent } from '../../legacy';
import { gpuServiceEntityContent } from '../../plugin';
import { GpuServiceTab } from './GpuServiceTab';

jest.setTimeout(30_000);
configure({ asyncUtilTimeout: 10_000 });

function entity(id: string): Entity {
  return {
    apiVersion: 'backstage.io/v1alpha1',
    kind: 'Component',
    metadata: {
      name: 'summariser',
      annotations: { 'gpu.backstage.io/service-id': id },
    },
  };
}

describe('the entity GPU tab', () => {
  it('is the GPU tab at /gpu, only on entities naming a gpu service', () => {
    const tester = createExtensionTester(gpuServiceEntityContent);
    expect(tester.get(coreExtensionData.routePath)).toBe('/gpu');
    expect(tester.get(EntityContentBlueprint.dataRefs.title)).toBe('GPU');
    const filter = tester.get(EntityContentBlueprint.dataRefs.filterFunction)!;
    expect(filter(entity('abc'))).toBe(true);
    expect(filter({ ...entity('abc'), metadata: { name: 'x' } })).toBe(false);
  });

  it("shows the service's status from the cluster: pending in Kueue and why", async () => {
    const applied = appliedSummariser({
      clusterStatus: pendingAdmissionStatus(),
    });
    const api = new FakeGpuApi();
    api.services.set(applied.id, applied);
    api.usage = async () => summariserUsage();
    api.cost = async () => summariserCost(summariserUsage());
    await renderInTestApp(
      <TestApiProvider apis={[[gpuApiRef, api]]}>
        <EntityProvider entity={entity(applied.id)}>
          <GpuServiceTab />
        </EntityProvider>
      </TestApiProvider>,
    );
    expect(
      (await screen.findAllByText(new RegExp(KUEUE_QUOTA_WORDS.slice(0, 30))))
        .length,
    ).toBeGreaterThan(0);
    expect(screen.queryByTestId('cluster-not-read')).toBeNull();
  });

  it('says that a dry-run service runs nothing in a cluster (legacy export)', async () => {
    const svc = summariserService();
    const api = new FakeGpuApi();
    api.services.set(svc.id, svc);
    api.usage = async () => summariserUsage();
    api.cost = async () => summariserCost(summariserUsage());
    await renderLegacy(
      <TestApiProvider
        apis={[
          [gpuApiRef, api],
          [permissionApiRef, legacyMockApis.permission()],
        ]}
      >
        <EntityProvider entity={entity(svc.id)}>
          <EntityGpuContent />
        </EntityProvider>
      </TestApiProvider>,
    );
    expect(await screen.findByTestId('cluster-not-read')).toHaveTextContent(
      'No cluster is configured (dry-run)',
    );
  });
});
