export * from './checkScaleToZero';
export * from './parseServiceDefaults';
export * from './readServiceDefaults';
export * from './resolveServiceSettings';
export * from './serviceDefaultsSchema';
export * from './surgeFit';
export * from './types';
export * from './checkServiceDefaults';
