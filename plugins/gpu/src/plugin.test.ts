import { coreExtensionData } from '@backstage/frontend-plugin-api';
import { createExtensionTester } from '@backstage/frontend-test-utils';
import { FormFieldBlueprint } from '@backstage/plugin-scaffolder-react/alpha';
import {
  gpuGovernancePage,
  gpuPlugin,
  gpuQuoteSummaryField,
  gpuTeamPickerField,
  gpuTierPickerField,
} from './plugin';

describe('gpu frontend plugin', () => {
  it('mounts the governance page at /gpu with a sidebar title', () => {
    expect(gpuPlugin.pluginId).toBe('gpu');
    const tester = createExtensionTester(gpuGovernancePage);
    expect(tester.get(coreExtensionData.routePath)).toBe('/gpu');
    expect(tester.get(coreExtensionData.title)).toBe('GPU');
  });

  it('offers the GpuTierPicker form field to the scaffolder', async () => {
    const tester = createExtensionTester(gpuTierPickerField);
    const loader = tester.get(FormFieldBlueprint.dataRefs.formFieldLoader);
    const field = await loader();
    expect(field.$$type).toBe('@backstage/scaffolder/FormField');
  });

  it('offers the GpuQuoteSummary form field to the scaffolder', async () => {
    const tester = createExtensionTester(gpuQuoteSummaryField);
    const loader = tester.get(FormFieldBlueprint.dataRefs.formFieldLoader);
    expect((await loader()).$$type).toBe('@backstage/scaffolder/FormField');
  });

  it('offers the GpuTeamPicker form field to the scaffolder', async () => {
    const tester = createExtensionTester(gpuTeamPickerField);
    const loader = tester.get(FormFieldBlueprint.dataRefs.formFieldLoader);
    expect((await loader()).$$type).toBe('@backstage/scaffolder/FormField');
  });
});
