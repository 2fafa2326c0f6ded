import {
  ApiBlueprint,
  createFrontendPlugin,
  discoveryApiRef,
  fetchApiRef,
  PageBlueprint,
} from '@backstage/frontend-plugin-api';
import {
  EntityCardBlueprint,
  EntityContentBlueprint,
} from '@backstage/plugin-catalog-react/alpha';
import { FormFieldBlueprint } from '@backstage/plugin-scaffolder-react/alpha';
import MemoryIcon from '@material-ui/icons/Memory';
import { GpuClient, gpuApiRef } from './api';
import { isGpuServiceAvailable } from './components/GpuServiceCard/annotations';
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

/** The GPU usage and cost card on the overview of entities with the `gpu.backstage.io/service-id` annotation. */
export const gpuServiceEntityCard = EntityCardBlueprint.make({
  name: 'service',
  params: {
    filter: isGpuServiceAvailable,
    loader: () =>
      import('./components/GpuServiceCard').then(m => <m.GpuServiceCard />),
  },
});

/** A small card at the top of the overview's info column: tier, pool, status and month-to-date cost. */
export const gpuServiceSummaryEntityCard = EntityCardBlueprint.make({
  name: 'summary',
  params: {
    type: 'info',
    filter: isGpuServiceAvailable,
    loader: () =>
      import('./components/GpuServiceSummary').then(m => (
        <m.GpuServiceSummaryCard />
      )),
  },
});

/** The entity's GPU tab (`/gpu`): the card full width with the cluster's status, usage, cost and actions. */
export const gpuServiceEntityContent = EntityContentBlueprint.make({
  name: 'service',
  params: {
    path: '/gpu',
    title: 'GPU',
    filter: isGpuServiceAvailable,
    loader: () =>
      import('./components/GpuServiceTab').then(m => <m.GpuServiceTab />),
  },
});

/** The `GpuTierPicker` scaffolder form field, attached to the scaffolder's form fields API. */
export const gpuTierPickerField = FormFieldBlueprint.make({
  name: 'tier-picker',
  params: {
    field: () =>
      import('./components/TierPicker/formField').then(
        m => m.gpuTierPickerFormField,
      ),
  },
});

/** The `GpuQuoteSummary` scaffolder form field: the sizing step's live fit and cost. */
export const gpuQuoteSummaryField = FormFieldBlueprint.make({
  name: 'quote-summary',
  params: {
    field: () =>
      import('./components/QuoteSummary/formField').then(
        m => m.gpuQuoteSummaryFormField,
      ),
  },
});

/** The `GpuTeamPicker` scaffolder form field: the owning team, teams without GPU quota marked and not choosable. */
export const gpuTeamPickerField = FormFieldBlueprint.make({
  name: 'team-picker',
  params: {
    field: () =>
      import('./components/TeamPicker/formField').then(
        m => m.gpuTeamPickerFormField,
      ),
  },
});

/** The `GpuDtypePicker` scaffolder form field: the precisions the form's runtime serves its model in. */
export const gpuDtypePickerField = FormFieldBlueprint.make({
  name: 'dtype-picker',
  params: {
    field: () =>
      import('./components/DtypePicker/formField').then(
        m => m.gpuDtypePickerFormField,
      ),
  },
});

/**
 * The GPU plugin: governance page, entity card, summary card and GPU tab, team and tier pickers and the sizing step's quote summary.
 *
 * @public
 */
export const gpuPlugin = createFrontendPlugin({
  pluginId: 'gpu',
  info: { packageJson: () => import('../package.json') },
  extensions: [
    gpuApi,
    gpuGovernancePage,
    gpuServiceEntityCard,
    gpuServiceSummaryEntityCard,
    gpuServiceEntityContent,
    gpuTierPickerField,
    gpuQuoteSummaryField,
    gpuTeamPickerField,
    gpuDtypePickerField,
  ],
  routes: {
    root: rootRouteRef,
  },
});
