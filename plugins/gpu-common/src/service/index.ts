export * from './serviceRequestSchema';
export * from './types';
export * from './validateServiceRequest';
export * from './serviceStatusWords';
export * from './latencyBudgetStatus';
