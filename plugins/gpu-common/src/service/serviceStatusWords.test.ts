import { clusterModeInWords, serviceStatusInWords } from './serviceStatusWords';

describe('serviceStatusInWords', () => {
  it('says each status in words, never its key', () => {
    expect(serviceStatusInWords('pending-approval')).toBe(
      'waiting for approval',
    );
    expect(serviceStatusInWords('applying')).toBe('being applied');
    expect(serviceStatusInWords('deleting')).toBe('being deleted');
  });
});

describe('clusterModeInWords', () => {
  it('says how a service reaches its cluster, never the mode key', () => {
    expect(clusterModeInWords('gitops')).toBe(
      'delivered through a pull request to the GitOps repository',
    );
    expect(clusterModeInWords('dry-run')).toBe(
      'rendered only: no cluster is configured',
    );
  });
});
