export * from './history';
export * from './startPrometheusWithHistory';
export * from './scenario';
export * from './binaries';
