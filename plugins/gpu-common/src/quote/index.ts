export * from './autoscaledReplicas';
export * from './environmentPreference';
export * from './quoteService';
export * from './types';
export * from './governance';
export * from './measuredCapacity';
export * from './replicaCapacity';
export * from './poolCapacityFit';
