export { DatabaseGpuStore } from './DatabaseGpuStore';
export { GPU_UNITS_PER_EQUIVALENT } from './units';
export * from './types';
