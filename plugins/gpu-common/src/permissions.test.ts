import { isResourcePermission } from '@backstage/plugin-permission-common';
import {
  GPU_SERVICE_RESOURCE_TYPE,
  gpuApprovePermission,
  gpuPermissions,
  gpuQuotaReadPermission,
  gpuQuotaUpdatePermission,
  gpuServicePermissions,
} from './permissions';

describe('gpu permissions', () => {
  it('makes every service permission a gpu-service resource permission, and the platform ones basic', () => {
    expect(
      gpuServicePermissions.map(p => [p.name, p.attributes.action]),
    ).toEqual([
      ['gpu.service.create', 'create'],
      ['gpu.service.read', 'read'],
      ['gpu.service.update', 'update'],
      ['gpu.service.delete', 'delete'],
    ]);
    for (const permission of gpuServicePermissions) {
      expect(isResourcePermission(permission, GPU_SERVICE_RESOURCE_TYPE)).toBe(
        true,
      );
    }
    for (const permission of [
      gpuQuotaReadPermission,
      gpuQuotaUpdatePermission,
      gpuApprovePermission,
    ]) {
      expect(permission.type).toBe('basic');
    }
    const names = gpuPermissions.map(p => p.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names.every(n => n.startsWith('gpu.'))).toBe(true);
  });
});
