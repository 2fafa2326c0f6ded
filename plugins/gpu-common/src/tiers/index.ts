export * from './describeSlice';
export * from './poolTier';
export * from './resourceNameFor';
export * from './slicesFor';
export * from './tierIsolation';
export * from './types';
export * from './gpuUnits';
export * from './migSliceWeights';
