export { GpuServiceSummaryCard } from './GpuServiceSummaryCard';
