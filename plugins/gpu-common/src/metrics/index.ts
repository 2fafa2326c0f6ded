export * from './metricNames';
