import { gpuPlugin } from './plugin';

describe('gpu', () => {
  it('should export plugin', () => {
    expect(gpuPlugin).toBeDefined();
  });
});
