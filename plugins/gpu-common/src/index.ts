/**
 * Isomorphic domain core of the gpu plugin: platform model and config, GPU and model catalogue, sizing, sharing
 * tiers, cost, service requests, catalog entity refs, API types and permissions.
 *
 * @packageDocumentation
 */

export * from './api/clusterStatus';
export * from './api/conditions';
export * from './api/drift';
export * from './api/platformManifests';
export * from './api/types';
export * from './api/governance';
export * from './api/signals';
export * from './api/usage';
export * from './api/serviceThroughput';
export * from './api/platformChecks';
export * from './catalog';
export * from './checks';
export * from './cost';
export * from './errors';
export * from './metrics';
export * from './operations';
export * from './permissions';
export * from './placement';
export * from './platform';
export * from './quote';
export * from './quota';
export * from './service';
export * from './serviceDefaults';
export * from './sizing';
export * from './tiers';
