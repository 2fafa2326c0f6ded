import {
  ApiBlueprint,
  createFrontendPlugin,
  discoveryApiRef,
  fetchApiRef,
  PageBlueprint,
} from '@backstage/frontend-plugin-api';
import MemoryIcon from '@material-ui/icons/Memory';
import { GpuClient, gpuApiRef } from './api';
import { rootRouteRef } from './routes';

export const gpuApi = ApiBlueprint.make({
  params: defineParams =>
    defineParams({
      api: gpuApiRef,
      deps: { discoveryApi: discoveryApiRef, fetchApi: fetchApiRef },
      factory: ({ discoveryApi, fetchApi }) =>
        new GpuClient({ discoveryApi, fetchApi }),
    }),
});

export const gpuGovernancePage = PageBlueprint.make({
  params: {
    path: '/gpu',
    title: 'GPU',
    icon: <MemoryIcon />,
    routeRef: rootRouteRef,
    loader: () =>
      import('./components/GovernancePage').then(m => <m.GovernancePage />),
  },
});

/**
 * The GPU plugin: governance page, entity card and tier picker.
 *
 * @public
 */
export const gpuPlugin = createFrontendPlugin({
  pluginId: 'gpu',
  info: { packageJson: () => import('../package.json') },
  extensions: [gpuApi, gpuGovernancePage],
  routes: {
    root: rootRouteRef,
  },
});
