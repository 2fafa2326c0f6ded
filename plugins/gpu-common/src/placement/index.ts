export * from './migMemorySlices';
export * from './planPlacement';
export * from './plannerItemFor';
export * from './types';
