export { gpuApiRef } from './GpuApi';
export type { CostExportFile, CostExportPeriod, GpuApi } from './GpuApi';
export { GpuClient } from './GpuClient';
