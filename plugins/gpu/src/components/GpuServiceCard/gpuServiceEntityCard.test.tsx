import { Entity } from '@backstage/catalog-model';
import { createExtensionTester } from '@backstage/frontend-test-utils';
import { EntityProvider } from '@backstage/plugin-catalog-react';
import { EntityCardBlueprint } from '@backstage/plugin-catalog-react/alpha';
import { renderInTestApp, TestApiProvider } from '@backstage/test-utils';
import { screen } from '@testing-library/react';
import { gpuApiRef } from '../../api';
import { FakeGpuApi } from '../../__testUtils__/FakeGpuApi';
import { gpuPlugin, gpuServiceEntityCard } from '../../plugin';
import { EntityGpuServiceCard } from '../../legacy';

// Rendering the card in a test app can pass the default 5 s on a busy 2-core machine.
jest.setTimeout(30_000);

const component = (annotations?: Record<string, string>): Entity => ({
  apiVersion: 'backstage.io/v1alpha1',
  kind: 'Component',
  metadata: { name: 'summariser', annotations },
});

describe('gpuServiceEntityCard', () => {
  it('is an entity card of the gpu plugin shown only on entities naming a gpu service', () => {
    expect(gpuPlugin.pluginId).toBe('gpu');
    const tester = createExtensionTester(gpuServiceEntityCard);
    const filter = tester.get(EntityCardBlueprint.dataRefs.filterFunction)!;
    expect(filter(component({ 'gpu.backstage.io/service-id': 'abc' }))).toBe(
      true,
    );
    expect(filter(component({ 'gpu.backstage.io/service-id': '  ' }))).toBe(
      false,
    );
    expect(
      filter(component({ 'backstage.io/kubernetes-id': 'summariser' })),
    ).toBe(false);
    expect(filter(component())).toBe(false);
  });

  it('is also exported for legacy apps, reading the same annotation', async () => {
    const api = new FakeGpuApi();
    await renderInTestApp(
      <TestApiProvider apis={[[gpuApiRef, api]]}>
        <EntityProvider
          entity={component({ 'gpu.backstage.io/service-id': 'gone' })}
        >
          <EntityGpuServiceCard />
        </EntityProvider>
      </TestApiProvider>,
    );
    expect(await screen.findByTestId('service-not-found')).toHaveTextContent(
      'gone',
    );
    expect(api.callsOf('getService')).toEqual([['gone']]);
  });
});
