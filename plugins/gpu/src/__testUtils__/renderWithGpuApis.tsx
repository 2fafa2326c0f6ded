import {
  mockApis,
  renderInTestApp,
  TestApiProvider,
} from '@backstage/frontend-test-utils';
import { Entity } from '@backstage/catalog-model';
import { catalogApiRef } from '@backstage/plugin-catalog-react';
import { catalogApiMock } from '@backstage/plugin-catalog-react/testUtils';
import { AuthorizeResult } from '@backstage/plugin-permission-common';
import { permissionApiRef } from '@backstage/plugin-permission-react';
import { ReactElement } from 'react';
import { SWRConfig } from 'swr';
import { gpuApiRef } from '../api';
import { FakeGpuApi } from './FakeGpuApi';

/**
 * Renders `element` in a test app with `api` as the GPU API and a permission API that allows (or, with
 * `allow: false`, denies) everything. Each render gets an SWR cache of its own: usePermission keeps its decisions in
 * SWR's global cache, so a render that denies would otherwise leave its decision to the next. The catalog holds
 * `entities` (none by default).
 */
export async function renderWithGpuApis(
  element: ReactElement,
  options: {
    api: FakeGpuApi;
    allow?: boolean;
    entities?: Entity[];
    mountedRoutes?: NonNullable<
      Parameters<typeof renderInTestApp>[1]
    >['mountedRoutes'];
  },
) {
  const { api, allow = true, mountedRoutes } = options;
  await renderInTestApp(
    <SWRConfig value={{ provider: () => new Map() }}>
      <TestApiProvider
        apis={[
          [gpuApiRef, api],
          [catalogApiRef, catalogApiMock({ entities: options.entities ?? [] })],
          [
            permissionApiRef,
            mockApis.permission({
              authorize: allow ? AuthorizeResult.ALLOW : AuthorizeResult.DENY,
            }),
          ],
        ]}
      >
        {element}
      </TestApiProvider>
    </SWRConfig>,
    mountedRoutes ? { mountedRoutes } : undefined,
  );
}
