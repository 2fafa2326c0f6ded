export { GpuServiceTab } from './GpuServiceTab';
