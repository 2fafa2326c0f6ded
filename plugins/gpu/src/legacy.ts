import {
  createApiFactory,
  createComponentExtension,
  createPlugin,
  discoveryApiRef,
  fetchApiRef,
} from '@backstage/core-plugin-api';
import { createScaffolderFieldExtension } from '@backstage/plugin-scaffolder-react';
import { GpuClient, gpuApiRef } from './api';
import { DtypePicker, GPU_DTYPE_PICKER_FIELD } from './components/DtypePicker';
import {
  GPU_TEAM_PICKER_FIELD,
  TeamPicker,
  validateTeamPicker,
} from './components/TeamPicker';
import {
  GPU_QUOTE_SUMMARY_FIELD,
  QuoteSummary,
} from './components/QuoteSummary';
import {
  GPU_TIER_PICKER_FIELD,
  TierPicker,
  tierPickerFieldSchema,
  validateTierPicker,
} from './components/TierPicker';

/**
 * The gpu plugin for apps on the legacy frontend system: provides the gpu API.
 *
 * @public
 */
export const legacyGpuPlugin = createPlugin({
  id: 'gpu',
  apis: [
    createApiFactory({
      api: gpuApiRef,
      deps: { discoveryApi: discoveryApiRef, fetchApi: fetchApiRef },
      factory: ({ discoveryApi, fetchApi }) =>
        new GpuClient({ discoveryApi, fetchApi }),
    }),
  ],
});

/**
 * The tier picker for legacy apps: put `<GpuTierPickerFieldExtension />` inside `<ScaffolderFieldExtensions>`.
 *
 * @public
 */
export const GpuTierPickerFieldExtension = legacyGpuPlugin.provide(
  createScaffolderFieldExtension({
    name: GPU_TIER_PICKER_FIELD,
    component: TierPicker,
    validation: validateTierPicker,
    schema: tierPickerFieldSchema.schema,
  }),
);

/**
 * The sizing step's live fit and cost for legacy apps: put `<GpuQuoteSummaryFieldExtension />` inside
 * `<ScaffolderFieldExtensions>`.
 *
 * @public
 */
export const GpuQuoteSummaryFieldExtension = legacyGpuPlugin.provide(
  createScaffolderFieldExtension({
    name: GPU_QUOTE_SUMMARY_FIELD,
    component: QuoteSummary,
  }),
);

/**
 * The owning-team picker for legacy apps: put `<GpuTeamPickerFieldExtension />` inside
 * `<ScaffolderFieldExtensions>`.
 *
 * @public
 */
export const GpuTeamPickerFieldExtension = legacyGpuPlugin.provide(
  createScaffolderFieldExtension({
    name: GPU_TEAM_PICKER_FIELD,
    component: TeamPicker,
    validation: validateTeamPicker,
  }),
);

/**
 * The precision picker for legacy apps: put `<GpuDtypePickerFieldExtension />` inside `<ScaffolderFieldExtensions>`.
 *
 * @public
 */
export const GpuDtypePickerFieldExtension = legacyGpuPlugin.provide(
  createScaffolderFieldExtension({
    name: GPU_DTYPE_PICKER_FIELD,
    component: DtypePicker,
  }),
);

/**
 * The GPU usage and cost card for legacy apps: put `<EntityGpuServiceCard />` on the entity overview, e.g. inside
 * `<EntitySwitch.Case if={isGpuServiceAvailable}>`.
 *
 * @public
 */
export const EntityGpuServiceCard: () => JSX.Element | null =
  legacyGpuPlugin.provide(
    createComponentExtension({
      name: 'EntityGpuServiceCard',
      component: {
        lazy: () =>
          import('./components/GpuServiceCard').then(m => m.GpuServiceCard),
      },
    }),
  );

/**
 * The GPU summary for legacy apps (tier, pool, status, month-to-date cost): put `<EntityGpuServiceSummaryCard />` at
 * the top of the entity overview, inside `<EntitySwitch.Case if={isGpuServiceAvailable}>`.
 *
 * @public
 */
export const EntityGpuServiceSummaryCard: () => JSX.Element | null =
  legacyGpuPlugin.provide(
    createComponentExtension({
      name: 'EntityGpuServiceSummaryCard',
      component: {
        lazy: () =>
          import('./components/GpuServiceSummary').then(
            m => m.GpuServiceSummaryCard,
          ),
      },
    }),
  );

/**
 * The GPU tab's content for legacy apps:
 * `<EntityLayout.Route path="/gpu" title="GPU" if={isGpuServiceAvailable}><EntityGpuContent /></EntityLayout.Route>`.
 *
 * @public
 */
export const EntityGpuContent: () => JSX.Element | null =
  legacyGpuPlugin.provide(
    createComponentExtension({
      name: 'EntityGpuContent',
      component: {
        lazy: () =>
          import('./components/GpuServiceTab').then(m => m.GpuServiceTab),
      },
    }),
  );
