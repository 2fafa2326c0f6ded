export * from './context';
export * from './decide';
export * from './formatMicros';
export * from './monthSpend';
export * from './snapshot';
export * from './types';
