import {
  ServiceClusterStatus,
  ServiceStatus,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { act, render, screen } from '@testing-library/react';
import {
  admittedStatus,
  appliedSummariser,
} from '../../__testUtils__/gpuFixtures';
import { RELATIVE_TIME_REFRESH_MS } from '../common/RelativeTime';
import { ClusterStatusSection } from './ClusterStatusSection';

/** The section of the summariser applied with `clusterStatus`, not polled. */
function renderSection(
  clusterStatus: ServiceClusterStatus,
  status: ServiceStatus,
) {
  render(
    <ClusterStatusSection
      service={appliedSummariser({ status, clusterStatus })}
      clusterStatus={clusterStatus}
      polling={false}
    />,
  );
}

describe('ClusterStatusSection', () => {
  beforeEach(() => {
    jest.useFakeTimers();
    jest.setSystemTime(new Date('2026-12-02T10:00:00Z'));
  });
  afterEach(() => jest.useRealTimers());

  it('keeps its relative times up with the clock while a ready service is not polled', () => {
    const clusterStatus = admittedStatus({ now: Date.now() });
    renderSection(clusterStatus, 'ready');
    expect(screen.getByTestId('cluster-status-observed')).toHaveTextContent(
      /read just now/,
    );
    expect(screen.getByTestId('cluster-warnings')).toHaveTextContent(
      '12 times, last 3 minutes ago',
    );

    act(() => {
      jest.advanceTimersByTime(2 * 60_000 + RELATIVE_TIME_REFRESH_MS);
    });
    expect(screen.getByTestId('cluster-status-observed')).toHaveTextContent(
      /read 2 minutes ago/,
    );
    expect(screen.getByTestId('cluster-warnings')).toHaveTextContent(
      '12 times, last 5 minutes ago',
    );
  });

  it('lists the objects of its manifests the cluster does not have', () => {
    const clusterStatus = {
      ...admittedStatus({ now: Date.now() }),
      missing: [
        {
          apiVersion: 'keda.sh/v1alpha1',
          kind: 'ScaledObject',
          namespace: 'ml-serving',
          name: 'summariser',
        },
      ],
    };
    renderSection(clusterStatus, 'failed');
    const list = screen.getByRole('list', {
      name: 'Missing from the cluster (1)',
    });
    expect(list).toHaveTextContent('ScaledObject ml-serving/summariser');
  });

  it('shows no missing list when the cluster has every object', () => {
    const clusterStatus = admittedStatus({ now: Date.now() });
    renderSection(clusterStatus, 'ready');
    expect(screen.queryByTestId('cluster-missing')).toBeNull();
  });
});
