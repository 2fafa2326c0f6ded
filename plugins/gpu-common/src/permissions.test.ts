import { isPermission } from '@backstage/plugin-permission-common';
import {
  gpuApprovePermission,
  gpuPermissions,
  gpuQuotaReadPermission,
  gpuServiceCreatePermission,
} from './permissions';

describe('gpu permissions', () => {
  it('declares basic permissions with unique names and actions', () => {
    expect(gpuServiceCreatePermission).toEqual({
      type: 'basic',
      name: 'gpu.service.create',
      attributes: { action: 'create' },
    });
    expect(gpuQuotaReadPermission.attributes.action).toBe('read');
    expect(gpuApprovePermission.name).toBe('gpu.request.approve');
    expect(gpuPermissions.map(p => p.name)).toEqual([
      'gpu.service.create',
      'gpu.service.update',
      'gpu.service.delete',
      'gpu.quota.read',
      'gpu.quota.update',
      'gpu.request.approve',
    ]);
    expect(
      gpuPermissions.every(
        p =>
          isPermission(p, gpuServiceCreatePermission) ===
          (p === gpuServiceCreatePermission),
      ),
    ).toBe(true);
  });
});
