export * from './checkpointBytes';
export * from './estimateMemory';
export * from './fitSlices';
export * from './types';
export * from './units';
