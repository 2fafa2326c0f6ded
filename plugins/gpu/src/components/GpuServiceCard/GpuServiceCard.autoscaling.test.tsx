import { Entity } from '@backstage/catalog-model';
import {
  renderInTestApp,
  TestApiProvider,
} from '@backstage/frontend-test-utils';
import { EntityProvider } from '@backstage/plugin-catalog-react';
import {
  GpuServiceDetail,
  ServiceClusterStatus,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { configure, screen, within } from '@testing-library/react';
import { SWRConfig } from 'swr';
import { gpuApiRef } from '../../api';
import { FakeGpuApi } from '../../__testUtils__/FakeGpuApi';
import {
  admittedStatus,
  appliedSummariser,
  KUEUE_QUOTA_MESSAGE,
  KUEUE_QUOTA_WORDS,
  summariserCost,
  summariserPod,
  summariserService,
  summariserUsage,
} from '../../__testUtils__/gpuFixtures';
import { GpuServiceCard } from './GpuServiceCard';

jest.setTimeout(30_000);
configure({ asyncUtilTimeout: 10_000 });

/** The summariser scaling on its queue between `min` and `max` replicas with KEDA. */
function autoscaled(
  overrides: Partial<GpuServiceDetail>,
  range: { min: number; max: number } = { min: 1, max: 4 },
): GpuServiceDetail {
  const base = appliedSummariser(overrides);
  return {
    ...base,
    request: {
      ...base.request,
      autoscaling: {
        minReplicas: range.min,
        maxReplicas: range.max,
        targetQueueDepth: 2,
        engine: 'keda',
      },
    },
  };
}

/**
 * KEDA asked for four replicas (the Deployment's `spec.replicas`); three run, admitted within the team's quota; the
 * fourth pod is gated, its Workload pending with Kueue's message. As the backend reads it from the cluster.
 */
function scaledUpBeyondQuota(): ServiceClusterStatus {
  const running = admittedStatus({ ready: true, replicas: 3 });
  const gated = summariserPod(3);
  return {
    ...running,
    deployment: {
      ...running.deployment!,
      replicas: 4,
      currentReplicas: 4,
      updatedReplicas: 4,
      readyReplicas: 3,
      availableReplicas: 3,
      available: false,
      reason: '3 of 4 updated replicas available',
    },
    admission: {
      ...running.admission!,
      state: 'pending',
      admitted: 3,
      pending: 1,
      reason: 'Pending',
      message: KUEUE_QUOTA_MESSAGE,
      workloads: [
        ...running.admission!.workloads,
        {
          name: `pod-${gated}-3f9a4`,
          pod: gated,
          state: 'pending',
          reason: 'Pending',
          message: KUEUE_QUOTA_MESSAGE,
          podSets: [],
        },
      ],
    },
    pods: [
      ...running.pods!,
      {
        name: gated,
        phase: 'Pending',
        ready: false,
        restarts: 0,
        schedulingGates: ['kueue.x-k8s.io/admission'],
        reason: 'SchedulingGated',
        message: 'Scheduling is blocked due to non-empty scheduling gates',
      },
    ],
    warnings: [],
  };
}

async function renderCard(service: GpuServiceDetail) {
  const api = new FakeGpuApi();
  api.services.set(service.id, service);
  api.usage = async () => summariserUsage();
  api.cost = async () => summariserCost(summariserUsage());
  const entity: Entity = {
    apiVersion: 'backstage.io/v1alpha1',
    kind: 'Component',
    metadata: {
      name: 'summariser',
      annotations: { 'gpu.backstage.io/service-id': service.id },
    },
    spec: { type: 'service', lifecycle: 'production', owner: 'ml-platform' },
  };
  await renderInTestApp(
    <SWRConfig value={{ provider: () => new Map() }}>
      <TestApiProvider apis={[[gpuApiRef, api]]}>
        <EntityProvider entity={entity}>
          <GpuServiceCard />
        </EntityProvider>
      </TestApiProvider>
    </SWRConfig>,
  );
}

/** The figure's label and value (and caption), as one text. */
const figure = (testId: string) =>
  within(screen.getByTestId('autoscaling-section')).getByTestId(testId);

describe('GpuServiceCard of an autoscaled service', () => {
  it('shows current and desired replicas as the cluster reports them beside the range, and the fourth replica waiting on Kueue with its reason', async () => {
    const kueueReason = `Availability lost: Waiting for Kueue admission (1 of 4 pods): ${KUEUE_QUOTA_MESSAGE}`;
    await renderCard(
      autoscaled({
        status: 'starting',
        reason: 'KueuePending',
        statusReason: kueueReason,
        clusterStatus: scaledUpBeyondQuota(),
      }),
    );
    expect(await screen.findByTestId('autoscaling-section')).toHaveTextContent(
      'Autoscaling (KEDA, on the queue: 2 waiting requests per replica)',
    );
    // Current: the Deployment's ready replicas; desired: its spec.replicas, which KEDA's HPA set.
    expect(figure('replicas-current')).toHaveTextContent(/^Current3$/);
    expect(figure('replicas-desired')).toHaveTextContent(/^Desired4$/);
    expect(figure('replicas-min')).toHaveTextContent(/^Minimum1$/);
    expect(figure('replicas-max')).toHaveTextContent(/^Maximum4$/);
    // The replica above the team's quota waits, with Kueue's typed reason and its own message.
    expect(screen.getByTestId('cluster-status-chip')).toHaveTextContent(
      /^Starting: waiting for Kueue admission$/,
    );
    expect(screen.getByTestId('cluster-status-reason')).toHaveTextContent(
      `Availability lost: Waiting for Kueue admission (1 of 4 pods): ${KUEUE_QUOTA_WORDS}`,
    );
    expect(screen.getByTestId('cluster-admission')).toHaveTextContent(
      `Kueue admissionPending1 of 4 workloads pending: ${KUEUE_QUOTA_WORDS}`,
    );
    expect(screen.getByRole('table', { name: 'Pods (4)' })).toHaveTextContent(
      `${summariserPod(3)}not scheduled (gated by kueue.x-k8s.io/admission)`,
    );
    // No wake endpoint: it does not scale to zero.
    expect(screen.queryByTestId('wake-endpoint')).toBeNull();
  });

  it('shows a service idled to zero with no replica current or desired, and the endpoint that wakes it', async () => {
    const idle = admittedStatus({ ready: true, replicas: 0 });
    await renderCard(
      autoscaled(
        {
          status: 'ready',
          reason: 'Available',
          statusReason: undefined,
          endpoint:
            'http://keda-add-ons-http-interceptor-proxy.keda.svc.cluster.local:8080',
          endpointHost: 'summariser.ml-serving.svc.cluster.local',
          clusterStatus: {
            ...idle,
            admission: {
              state: 'none',
              admitted: 0,
              pending: 0,
              flavors: {},
              workloads: [],
            },
            warnings: [],
          },
        },
        { min: 0, max: 2 },
      ),
    );
    expect(await screen.findByTestId('autoscaling-section')).toBeVisible();
    expect(figure('replicas-current')).toHaveTextContent(/^Current0$/);
    expect(figure('replicas-desired')).toHaveTextContent(/^Desired0$/);
    expect(figure('replicas-min')).toHaveTextContent(
      /^Minimum0scales to zero$/,
    );
    expect(figure('replicas-max')).toHaveTextContent(/^Maximum2$/);
    expect(figure('wake-endpoint')).toHaveTextContent(
      'Wake endpoint: http://keda-add-ons-http-interceptor-proxy.keda.svc.cluster.local:8080 with Host: summariser.ml-serving.svc.cluster.local. A request there is held while the service scales from zero, then answered.',
    );
  });

  it('says current and desired are not read yet while the cluster has not been read', async () => {
    await renderCard(autoscaled({}));
    expect(await screen.findByTestId('autoscaling-section')).toBeVisible();
    expect(figure('replicas-current')).toHaveTextContent(/^Current…$/);
    expect(figure('replicas-desired')).toHaveTextContent(/^Desired…$/);
  });

  it('shows nothing of autoscaling for a fixed-size service', async () => {
    await renderCard(
      appliedSummariser({
        status: 'ready',
        reason: 'Available',
        statusReason: undefined,
        clusterStatus: admittedStatus({ ready: true }),
      }),
    );
    expect(await screen.findByTestId('cluster-status')).toBeVisible();
    expect(screen.queryByTestId('autoscaling-section')).toBeNull();
  });

  it('shows the range only, without current or desired figures from a cluster, on a dry run', async () => {
    const dryRun = summariserService({ mode: 'dry-run' });
    await renderCard({
      ...dryRun,
      manifests: [],
      request: {
        ...dryRun.request,
        autoscaling: {
          minReplicas: 1,
          maxReplicas: 3,
          targetQueueDepth: 2,
          engine: 'keda',
        },
      },
    });
    expect(await screen.findByTestId('autoscaling-section')).toBeVisible();
    expect(figure('replicas-current')).toHaveTextContent(/^Current—$/);
    expect(figure('replicas-desired')).toHaveTextContent(/^Desired—$/);
    expect(figure('replicas-max')).toHaveTextContent(/^Maximum3$/);
  });
});
