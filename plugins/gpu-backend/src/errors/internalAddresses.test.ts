import {
  containsInternalAddress,
  withoutInternalAddresses,
} from './internalAddresses';
import { messagesWithoutAddresses } from './messagesWithoutAddresses';

describe('withoutInternalAddresses', () => {
  it.each([
    [
      'request to https://127.0.0.1:17802/apis/apps/v1/namespaces/ml/deployments failed, reason: connect ECONNREFUSED 127.0.0.1:17802',
      'request to (address withheld) failed, reason: connect ECONNREFUSED (address withheld)',
    ],
    [
      'Prometheus is unreachable at http://prometheus.monitoring.svc:9090: fetch failed',
      'Prometheus is unreachable at (address withheld) fetch failed',
    ],
    [
      'connect ECONNREFUSED [::1]:5432',
      'connect ECONNREFUSED (address withheld)',
    ],
    [
      'getaddrinfo ENOTFOUND db.internal:5432',
      'getaddrinfo ENOTFOUND (address withheld)',
    ],
    [
      'dial tcp localhost:6443: i/o timeout',
      'dial tcp (address withheld): i/o timeout',
    ],
  ])('takes the addresses out of %p', (message, expected) => {
    expect(containsInternalAddress(message)).toBe(true);
    expect(withoutInternalAddresses(message)).toBe(expected);
    expect(containsInternalAddress(withoutInternalAddresses(message))).toBe(
      false,
    );
  });

  it('leaves messages without addresses as they are', () => {
    for (const message of [
      '0/3 nodes are available: 3 Insufficient nvidia.com/gpu.',
      'Needs 1.5 GPU-equivalents of pool l4-ondemand; team search has 0 of 4 left',
      'Costs $1,234.56 a month',
      'mistral-7b v1.2.3',
    ]) {
      expect(containsInternalAddress(message)).toBe(false);
      expect(withoutInternalAddresses(message)).toBe(message);
    }
  });
});

describe('messagesWithoutAddresses', () => {
  it('scrubs messages at any depth, leaves data fields and the original alone', () => {
    const answer = {
      endpoint: 'http://summariser.ml.svc.cluster.local:8000',
      statusReason: 'apply failed: connect ECONNREFUSED 10.0.0.1:6443',
      clusterStatus: {
        error:
          "The cluster 'gpu' could not be read: https://10.0.0.1:6443 timed out",
        pods: [{ reason: 'ok', message: 'pulling from 192.168.1.5:5000' }],
      },
      metrics: {
        state: 'unavailable',
        warnings: ['http://127.0.0.1:9090 down'],
      },
    };
    const frozen = structuredClone(answer);
    const scrubbed = messagesWithoutAddresses(answer);
    expect(answer).toEqual(frozen);
    expect(scrubbed).toEqual({
      endpoint: 'http://summariser.ml.svc.cluster.local:8000',
      statusReason: 'apply failed: connect ECONNREFUSED (address withheld)',
      clusterStatus: {
        error:
          "The cluster 'gpu' could not be read: (address withheld) timed out",
        pods: [{ reason: 'ok', message: 'pulling from (address withheld)' }],
      },
      metrics: { state: 'unavailable', warnings: ['(address withheld) down'] },
    });
    const clean = { items: [{ statusReason: 'Applied' }] };
    expect(messagesWithoutAddresses(clean)).toBe(clean);
  });
});
