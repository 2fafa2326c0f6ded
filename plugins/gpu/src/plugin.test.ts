import { coreExtensionData } from '@backstage/frontend-plugin-api';
import { createExtensionTester } from '@backstage/frontend-test-utils';
import { gpuGovernancePage, gpuPlugin } from './plugin';

describe('gpu frontend plugin', () => {
  it('mounts the governance page at /gpu with a sidebar title', () => {
    expect(gpuPlugin.id).toBe('gpu');
    const tester = createExtensionTester(gpuGovernancePage);
    expect(tester.get(coreExtensionData.routePath)).toBe('/gpu');
    expect(tester.get(coreExtensionData.title)).toBe('GPU');
  });
});
