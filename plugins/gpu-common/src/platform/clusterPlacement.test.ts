import { clusterMatches, environmentAllowsCluster } from './clusterPlacement';
import { defaultEnvironments } from './defaultEnvironments';

describe('cluster placement', () => {
  it('matches names and * patterns whole', () => {
    expect(clusterMatches('prod-*', 'prod-eu')).toBe(true);
    expect(clusterMatches('prod-*', 'dev-prod-eu')).toBe(false);
    expect(clusterMatches('dev', 'dev')).toBe(true);
    expect(clusterMatches('dev', 'dev2')).toBe(false);
    expect(clusterMatches('a.b', 'axb')).toBe(false);
  });

  it('lets an environment without clusters use any, and one with clusters only those', () => {
    const production = { ...defaultEnvironments[2], clusters: ['prod-*'] };
    expect(environmentAllowsCluster(defaultEnvironments[0], 'dev')).toBe(true);
    expect(environmentAllowsCluster(production, 'prod-us')).toBe(true);
    expect(environmentAllowsCluster(production, 'dev')).toBe(false);
    expect(environmentAllowsCluster(production, undefined)).toBe(true);
  });
});
