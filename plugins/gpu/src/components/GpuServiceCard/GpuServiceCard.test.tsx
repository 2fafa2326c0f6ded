import { Entity } from '@backstage/catalog-model';
import {
  renderInTestApp,
  TestApiProvider,
} from '@backstage/frontend-test-utils';
import { EntityProvider } from '@backstage/plugin-catalog-react';
import {
  allocationCost,
  findPool,
  formatUsd,
  ServiceCost,
} from '@gpu-platform/backstage-plugin-gpu-common';
import {
  act,
  configure,
  screen,
  waitFor,
  within,
} from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { gpuApiRef } from '../../api';
import { FakeGpuApi } from '../../__testUtils__/FakeGpuApi';
import {
  admittedStatus,
  appliedSummariser,
  KUEUE_QUOTA_MESSAGE,
  KUEUE_QUOTA_WORDS,
  pendingAdmissionStatus,
  platform,
  READINESS_PROBE_MESSAGE,
  rightSizeRecommendation,
  summariserPod,
  summariserCost,
  summariserService,
  summariserUsage,
  unreadableStatus,
  usageWithoutMetrics,
} from '../../__testUtils__/gpuFixtures';
import { responseError } from '../../__testUtils__/responseError';
import { GpuServiceCard } from './GpuServiceCard';

jest.setTimeout(30_000);
// Rendering and lazy chart modules can take more than the default second on a busy machine.
configure({ asyncUtilTimeout: 10_000 });

/** Rendered for GitOps: its cost accrues from the reservation (Backstage does not read that cluster). */
const service = summariserService({
  mode: 'gitops',
  statusReason:
    'Rendered for GitOps: publish the manifests; nothing was applied by Backstage',
});

function entity(
  annotations: Record<string, string> = {
    'gpu.backstage.io/service-id': service.id,
  },
): Entity {
  return {
    apiVersion: 'backstage.io/v1alpha1',
    kind: 'Component',
    metadata: { name: 'summariser', annotations },
    spec: { type: 'service', lifecycle: 'production', owner: 'ml-platform' },
  };
}

/** The summariser applied, admitted by Kueue on its pool and available. */
function readySummariser() {
  return appliedSummariser({
    status: 'ready',
    reason: 'Available',
    statusReason: undefined,
    clusterStatus: admittedStatus({ ready: true }),
  });
}

/** A backend that knows the summariser and answers usage and cost from the fixtures. */
function backend(): FakeGpuApi {
  const api = new FakeGpuApi();
  api.services.set(service.id, service);
  api.usage = async () => summariserUsage();
  api.cost = async () =>
    summariserCost(summariserUsage(), [rightSizeRecommendation()]);
  return api;
}

async function renderCard(api: FakeGpuApi, e: Entity = entity()) {
  return renderInTestApp(
    <TestApiProvider apis={[[gpuApiRef, api]]}>
      <EntityProvider entity={e}>
        <GpuServiceCard />
      </EntityProvider>
    </TestApiProvider>,
  );
}

const figure = (id: string) => screen.getByTestId(id);

describe('GpuServiceCard', () => {
  it('shows placement, usage charts and figures, cost and the recommendation with its saving', async () => {
    const api = backend();
    const usage = summariserUsage();
    const cost = summariserCost(usage, [rightSizeRecommendation()]);
    await renderCard(api);

    expect(
      await screen.findByText(
        'dedicated on l4-ondemand · 1 replica, 1 GPU-equivalent · production · approved',
      ),
    ).toBeInTheDocument();
    const util = Math.round(usage.utilisation!.value * 100);
    expect(
      screen.getByRole('img', {
        name: `GPU utilisation: average ${util}% over 24h`,
      }),
    ).toBeInTheDocument();
    expect(
      screen.getByRole('img', {
        name: /^GPU memory used vs allocated: peak 19\.0 GiB of 24\.0 GiB allocated \(79%\)$/,
      }),
    ).toBeInTheDocument();
    expect(
      screen.getByRole('img', { name: /^Tokens\/s and queue depth: / }),
    ).toBeInTheDocument();

    expect(figure('figure-utilisation')).toHaveTextContent(`${util}%`);
    expect(figure('figure-utilisation')).toHaveTextContent(
      'measured on its own GPUs, high confidence',
    );
    expect(figure('figure-memory')).toHaveTextContent('/ 24.0 GiB');
    expect(figure('figure-tokens')).toHaveTextContent(
      `${Math.round(usage.tokens!.generated).toLocaleString(
        'en-US',
      )} tokens in 24h`,
    );
    expect(figure('figure-queue')).toHaveTextContent('3 waiting');
    expect(figure('figure-queue')).toHaveTextContent(
      '12 running, KV cache 41%',
    );
    expect(figure('figure-latency')).toHaveTextContent('4.20 s');

    // 14.5 days of an L4 at $0.8048/h, and that pace over the 730-hour month.
    expect(figure('figure-month-to-date')).toHaveTextContent(
      formatUsd(allocationCost(findPool(platform, 'l4-ondemand'), 1, 348)),
    );
    expect(figure('figure-month-to-date')).toHaveTextContent('$280.07');
    expect(figure('figure-projected')).toHaveTextContent(
      formatUsd(cost.projectedMonthMicros),
    );
    // Each names the calendar month it covers: neither reads as the price a month, which only the caption gives.
    expect(figure('figure-month-to-date')).toHaveTextContent(
      /^Cost November 2026 to date\$280\.07/,
    );
    expect(figure('figure-projected')).toHaveTextContent(
      /^Projected for November 2026\$/,
    );
    // The billing month's hours come from GET /platform, read beside the cost.
    await waitFor(() =>
      expect(figure('figure-projected')).toHaveTextContent(
        /\d\d-day calendar month; \$587\.50 for a 730 h billing month held/,
      ),
    );
    // Per 1M output tokens, as every token price of the card: the whole allocation over the window's tokens.
    expect(figure('figure-per-thousand-tokens')).toHaveTextContent(
      `Whole cost per 1M output tokens (measured)${formatUsd(
        cost.costPerThousandTokensMicros! * 1000,
        { decimals: 3 },
      )}`,
    );
    expect(figure('figure-idle-share')).toHaveTextContent(
      `${Math.round(cost.idleShare! * 100)}%`,
    );
    expect(figure('figure-window-cost')).toHaveTextContent('$19.32');
    expect(figure('figure-window-cost')).toHaveTextContent(
      'from the reservation: GitOps, the cluster is not read',
    );
    expect(screen.queryByTestId('accrual-notice')).not.toBeInTheDocument();
    expect(figure('figure-spot-saving')).toHaveTextContent('on-demand pool');

    const recommendations = screen.getByTestId('recommendations');
    // An L4 at $0.8048 x 730 h = $587.50 a month; a 1g.10gb of a100-mig weighs 672 of 5040 GPU units:
    // $27.447 / 8 GPUs x 730 h x 672 / 5040 = $333.94; saving $253.57.
    expect(recommendations).toHaveTextContent(
      'Move to a MIG 1g.10gb slice: saves $253.57 per month',
    );
    expect(api.callsOf('getServiceUsage')).toEqual([[service.id, '24h']]);
  });

  it('shows progress while the service loads', async () => {
    const api = backend();
    api.getService = () => new Promise(() => {});
    await renderCard(api);
    expect(await screen.findByTestId('progress')).toBeInTheDocument();
    expect(screen.getByText('GPU usage and cost')).toBeInTheDocument();
  });

  it('says when no metrics source is configured and still shows the allocation cost', async () => {
    const api = backend();
    const usage = usageWithoutMetrics({ state: 'not-configured' });
    api.usage = async () => usage;
    api.cost = async () => summariserCost(usage);
    await renderCard(api);
    expect(
      await screen.findByText(/: No metrics source configured$/),
    ).toBeInTheDocument();
    expect(
      screen.queryByRole('img', { name: /GPU utilisation/ }),
    ).not.toBeInTheDocument();
    expect(figure('figure-month-to-date')).toHaveTextContent('$280.07');
    // The billing month's hours come from GET /platform, read beside the cost.
    await waitFor(() =>
      expect(figure('figure-projected')).toHaveTextContent(
        /\d\d-day calendar month; \$587\.50 for a 730 h billing month held/,
      ),
    );
    expect(figure('figure-idle-share')).toHaveTextContent(
      '-needs usage metrics',
    );
    expect(figure('figure-per-thousand-tokens')).toHaveTextContent(
      'needs usage metrics',
    );
    // Nothing was measured, so nothing is said of the fit.
    expect(screen.getByTestId('no-recommendation')).toHaveTextContent(
      'No recommendation: it needs usage metrics to compare the slice with what the service uses.',
    );
  });

  it('shows one whole cost per 1M output tokens: the estimate at full load when nothing was measured', async () => {
    const api = backend();
    const usage = usageWithoutMetrics({ state: 'not-configured' });
    api.usage = async () => usage;
    api.cost = async () => ({
      ...summariserCost(usage),
      tokenCosts: {
        basis: 'estimated',
        capacityTokensPerSecond: 1500,
        costPerMillionInputTokensMicros: 5_556,
        costPerMillionOutputTokensMicros: 55_556,
        costPerThousandOutputTokensMicros: 69,
        costPerRequestMicros: 21,
      },
    });
    await renderCard(api);
    await screen.findByTestId('token-figures');
    expect(
      screen.getAllByText(/^Whole cost per 1M output tokens/),
    ).toHaveLength(1);
    // Every token price in one unit: nothing per 1,000 beside the per-1M prices.
    expect(screen.getByTestId('token-figures')).not.toHaveTextContent(/1,000/);
    expect(
      screen.queryByTestId('figure-per-thousand-tokens'),
    ).not.toBeInTheDocument();
    expect(figure('figure-per-thousand-estimated')).toHaveTextContent(
      'Whole cost per 1M output tokens (at full load)$0.069at 1,500 tokens/s fully busy; all of the cost on output tokens',
    );
  });

  it('labels simulated metrics as demo data, not measured, next to the usage', async () => {
    const api = backend();
    const usage = summariserUsage({ state: 'available', simulated: true });
    api.usage = async () => usage;
    api.cost = async () => summariserCost(usage);
    await renderCard(api);
    expect(
      await screen.findByText('Simulated metrics — demo data, not measured'),
    ).toBeInTheDocument();
    expect(figure('figure-window-cost')).toBeInTheDocument();
  });

  it('shows no simulated label on measured metrics', async () => {
    await renderCard(backend());
    await screen.findByTestId('figure-window-cost');
    expect(screen.queryByTestId('simulated-metrics')).not.toBeInTheDocument();
  });

  it('says when there is no usage data yet', async () => {
    const api = backend();
    const usage = usageWithoutMetrics({ state: 'no-data' });
    api.usage = async () => usage;
    api.cost = async () => summariserCost(usage);
    await renderCard(api);
    expect(await screen.findByText(/: No usage data yet$/)).toBeInTheDocument();
    expect(
      screen.getByText(/no series for this service's pods in the last 24h/),
    ).toBeInTheDocument();
    expect(figure('figure-window-cost')).toHaveTextContent('$19.32');
  });

  it('says usage is unavailable when Prometheus is down, with the reason, and shows the allocation cost', async () => {
    const api = backend();
    const usage = usageWithoutMetrics({
      state: 'unavailable',
      reason: 'Prometheus did not answer within 5000 ms',
    });
    api.usage = async () => usage;
    api.cost = async () => summariserCost(usage);
    await renderCard(api);
    expect(
      await screen.findByText(
        /: Prometheus unavailable: usage is unavailable$/,
      ),
    ).toBeInTheDocument();
    expect(
      screen.getByText(
        'Prometheus did not answer within 5000 ms. Showing the allocation cost only.',
      ),
    ).toBeInTheDocument();
    expect(figure('figure-month-to-date')).toHaveTextContent('$280.07');
  });

  it('names missing metric families when data is partial', async () => {
    const api = backend();
    const usage = summariserUsage({
      state: 'partial',
      missing: ['DCGM_FI_DEV_FB_USED'],
    });
    api.usage = async () => ({ ...usage, memory: undefined });
    await renderCard(api);
    expect(
      await screen.findByText(/: Some metrics are missing$/),
    ).toBeInTheDocument();
    expect(
      screen.getByText(/Missing: DCGM_FI_DEV_FB_USED/),
    ).toBeInTheDocument();
    expect(screen.queryByTestId('figure-memory')).not.toBeInTheDocument();
    expect(figure('figure-utilisation')).toBeInTheDocument();
  });

  it('keeps the cost when the usage route fails', async () => {
    const api = backend();
    api.usage = () =>
      responseError(
        503,
        'Service Unavailable',
        'ServiceUnavailableError',
        'metrics backend overloaded',
      ).then(e => Promise.reject(e));
    await renderCard(api);
    expect(
      await screen.findByText(/: Usage is unavailable$/),
    ).toBeInTheDocument();
    expect(
      screen.getByText(/metrics backend overloaded \(HTTP 503\)/),
    ).toBeInTheDocument();
    expect(figure('figure-month-to-date')).toHaveTextContent('$280.07');
  });

  it('shows the cost error and the allocation held when the cost route fails', async () => {
    const api = backend();
    api.cost = () => Promise.reject(new Error('cost exploded'));
    await renderCard(api);
    expect(
      (await screen.findAllByText(/cost exploded/)).length,
    ).toBeGreaterThan(0);
    expect(screen.getByTestId('fallback-monthly-cost')).toHaveTextContent(
      'Allocation held: $587.50 per month for 1 GPU-equivalent(s).',
    );
    expect(figure('figure-utilisation')).toBeInTheDocument();
  });

  it('says clearly when the annotation names a service the backend does not know', async () => {
    const api = backend();
    await renderCard(
      api,
      entity({ 'gpu.backstage.io/service-id': 'no-such-id' }),
    );
    const notFound = await screen.findByTestId('service-not-found');
    expect(notFound).toHaveTextContent('Service not found.');
    expect(notFound).toHaveTextContent('no-such-id');
    expect(api.callsOf('getServiceUsage')).toEqual([]);
  });

  it('shows other errors reading the service', async () => {
    const api = backend();
    api.getService = () => Promise.reject(new Error('gpu backend down'));
    await renderCard(api);
    expect(
      (await screen.findAllByText(/gpu backend down/)).length,
    ).toBeGreaterThan(0);
  });

  it('asks for the annotation when the entity has none', async () => {
    await renderCard(backend(), entity({}));
    expect(
      await screen.findByText(/gpu.backstage.io\/service-id/),
    ).toBeInTheDocument();
  });

  it('reloads usage and cost for another window', async () => {
    const api = backend();
    await renderCard(api);
    await screen.findByTestId('figure-utilisation');
    const user = userEvent.setup({ delay: null });
    expect(screen.getByRole('button', { name: /^Window/ })).toHaveTextContent(
      'Last 24 hours',
    );
    await user.click(screen.getByRole('button', { name: /^Window/ }));
    await user.click(
      within(await screen.findByRole('listbox')).getByText('Last 7 days'),
    );
    await waitFor(() =>
      expect(api.callsOf('getServiceCost')).toEqual([
        [service.id, '24h'],
        [service.id, '7d'],
      ]),
    );
    expect(api.callsOf('getServiceUsage').at(-1)).toEqual([service.id, '7d']);
  });

  it('flags XID errors and a cost per 1,000 tokens below a micro-dollar', async () => {
    const api = backend();
    const usage = {
      ...summariserUsage(),
      xid: { errorSamples: 3, lastCode: 79 },
    };
    api.usage = async () => usage;
    api.cost = async () => ({
      ...summariserCost(usage),
      allocationMicros: 894,
      generatedTokens: 47_514_000,
      costPerThousandTokensMicros: 0,
    });
    await renderCard(api);
    expect(await screen.findByTestId('figure-xid')).toHaveTextContent(
      'XID 793 sample(s) with an error in 24h',
    );
    expect(figure('figure-per-thousand-tokens')).toHaveTextContent('< $0.001');
  });

  it('shows a spot saving on a spot pool', async () => {
    const api = backend();
    const spot = findPool(platform, 'spot-l4');
    const onDemand = findPool(platform, 'l4-ondemand');
    const cost: ServiceCost = {
      ...summariserCost(),
      pool: 'spot-l4',
      spotSavingMicros:
        allocationCost(onDemand, 1, 24) - allocationCost(spot, 1, 24),
    };
    api.cost = async () => cost;
    await renderCard(api);
    expect(await screen.findByTestId('figure-spot-saving')).toHaveTextContent(
      '$10.44',
    );
  });

  describe('in the cluster', () => {
    const kueueReason = `Waiting for Kueue admission: ${KUEUE_QUOTA_MESSAGE}`;
    const probeReason = `Unhealthy (Pod ${summariserPod(
      0,
    )}): ${READINESS_PROBE_MESSAGE}`;

    afterEach(() => {
      jest.useRealTimers();
    });

    /** Lets `ms` of fake time pass and the reads it starts settle. */
    async function elapse(ms: number) {
      await act(async () => {
        await jest.advanceTimersByTimeAsync(ms);
      });
    }

    const section = () => screen.getByTestId('cluster-status');
    const chip = () => screen.getByTestId('cluster-status-chip');

    it('says a service waits for Kueue admission, with Kueue message, the gated pod and the replicas', async () => {
      const api = backend();
      api.services.set(
        service.id,
        appliedSummariser({
          statusReason: kueueReason,
          reason: 'KueuePending',
          clusterStatus: pendingAdmissionStatus(),
        }),
      );
      const held = summariserCost(summariserUsage());
      // Held since 11:00, never admitted: all of it reserved, none spent.
      api.cost = async () => ({
        ...held,
        accrualBasis: 'cluster-status',
        workload: { running: false, since: '2026-11-20T11:00:00.000Z' },
        allocationMicros: 0,
        usageMicros: undefined,
        idleMicros: undefined,
        idleShare: undefined,
        reservedMicros: 1_609_600,
        allocatedHours: 0,
        reservedHours: 2,
        monthToDate: { ...held.monthToDate, allocationMicros: 0 },
      });
      await renderCard(api);
      expect(await screen.findByTestId('accrual-notice')).toHaveTextContent(
        'Reserved, not running yet (since 2026-11-20 11:00 UTC)',
      );
      expect(screen.getByTestId('accrual-notice')).toHaveTextContent(
        '$1.61 reserved in 24h (2.0 h held)',
      );

      expect(
        await screen.findByRole('heading', { name: 'In the cluster' }),
      ).toBeInTheDocument();
      expect(chip()).toHaveTextContent(
        /^Starting: waiting for Kueue admission$/,
      );
      // Kueue's message in the UI's words: pools and the team queue, no flavors or pod sets (issue 25 jargon).
      expect(screen.getByTestId('cluster-status-reason')).toHaveTextContent(
        `Waiting for Kueue admission: ${KUEUE_QUOTA_WORDS}`,
      );
      expect(screen.getByTestId('cluster-status-reason')).not.toHaveTextContent(
        /flavor|pod set/,
      );
      expect(screen.getByTestId('service-conditions')).toHaveTextContent(
        'Conditions: Reserved: yes · Approved: yes · Applied: yes · Available: no (KueuePending)',
      );
      expect(screen.getByTestId('cluster-status-observed')).toHaveTextContent(
        'Cluster gpu-eu, read just now · refreshes every 5 s while it is starting',
      );
      expect(screen.getByTestId('cluster-replicas')).toHaveTextContent(
        'Replicas available0 of 10 ready, 1 updated; 0 of 1 updated replicas available; Available: False (MinimumReplicasUnavailable)',
      );
      expect(screen.getByTestId('cluster-admission')).toHaveTextContent(
        `Kueue admissionPending${KUEUE_QUOTA_WORDS}`,
      );

      const pods = screen.getByRole('table', { name: 'Pods (1)' });
      const rows = within(pods).getAllByRole('row');
      expect(rows).toHaveLength(2);
      expect(
        within(rows[1])
          .getAllByRole('cell')
          .map(c => c.textContent),
      ).toEqual([
        summariserPod(0),
        'not scheduled (gated by kueue.x-k8s.io/admission)',
        'Pending (SchedulingGated)',
        'no',
        '0',
      ]);
      expect(
        within(section()).queryByTestId('cluster-warnings'),
      ).not.toBeInTheDocument();
      // The subheader keeps the plain status.
      expect(
        screen.getByText(
          'dedicated on l4-ondemand · 1 replica, 1 GPU-equivalent · production · starting',
        ),
      ).toBeInTheDocument();
    });

    it('shows a ready service admitted on its pool in its team queue, the pod on its node and the warnings of its start', async () => {
      const api = backend();
      api.services.set(service.id, readySummariser());
      await renderCard(api);

      expect(
        await screen.findByTestId('cluster-status-chip'),
      ).toHaveTextContent(/^Ready$/);
      expect(
        screen.queryByTestId('cluster-status-reason'),
      ).not.toBeInTheDocument();
      expect(screen.getByTestId('cluster-status-observed')).toHaveTextContent(
        /^Cluster gpu-eu, read just now$/,
      );
      expect(screen.getByTestId('cluster-replicas')).toHaveTextContent(
        'Replicas available1 of 1available; 1 ready, 1 updated',
      );
      expect(screen.getByTestId('cluster-admission')).toHaveTextContent(
        'Kueue admissionAdmittedOn pool l4-ondemand, team queue gpu-ml-platform; 1 workload admitted',
      );
      const rows = within(
        screen.getByRole('table', { name: 'Pods (1)' }),
      ).getAllByRole('row');
      expect(
        within(rows[1])
          .getAllByRole('cell')
          .map(c => c.textContent),
      ).toEqual([
        summariserPod(0),
        'gpu-eu-l4-ondemand-0',
        'Running',
        'yes',
        '0',
      ]);

      const warnings = screen.getByRole('list', {
        name: 'Recent warnings (1)',
      });
      const items = within(warnings).getAllByRole('listitem');
      expect(items).toHaveLength(1);
      expect(items[0]).toHaveTextContent(
        `Unhealthy on Pod ${summariserPod(0)}: ${READINESS_PROBE_MESSAGE}`,
      );
      expect(items[0]).toHaveTextContent('12 times, last 3 minutes ago');
      // A long event message wraps inside the card instead of running past its edge.
      expect(
        getComputedStyle(
          within(items[0]).getByText(/^Unhealthy$/).parentElement!,
        ).overflowWrap,
      ).toBe('anywhere');
    });

    it('keeps pod names, nodes and phases whole at narrow widths: the table scrolls sideways, from the keyboard too', async () => {
      const api = backend();
      api.services.set(service.id, readySummariser());
      await renderCard(api);
      const table = await screen.findByRole('table', { name: 'Pods (1)' });
      const scroll = screen.getByRole('region', { name: 'Pods (1)' });
      expect(scroll).toContainElement(table);
      expect(scroll).toHaveAttribute('tabindex', '0');
      expect(getComputedStyle(scroll).overflowX).toBe('auto');
      for (const cell of within(table).getAllByRole('cell')) {
        expect(getComputedStyle(cell).whiteSpace).toBe('nowrap');
      }
    });

    it('lists a handful of pods and says how many more there are', async () => {
      const api = backend();
      api.services.set(
        service.id,
        appliedSummariser({
          status: 'ready',
          reason: 'Available',
          statusReason: undefined,
          clusterStatus: admittedStatus({ ready: true, replicas: 7 }),
        }),
      );
      await renderCard(api);
      const pods = await screen.findByRole('table', { name: 'Pods (7)' });
      expect(within(pods).getAllByRole('row')).toHaveLength(1 + 5);
      expect(within(pods).getByText(summariserPod(4))).toBeInTheDocument();
      expect(
        within(pods).queryByText(summariserPod(5)),
      ).not.toBeInTheDocument();
      expect(screen.getByTestId('cluster-pods')).toHaveTextContent(
        /and 2 more$/,
      );
      expect(screen.getByTestId('cluster-admission')).toHaveTextContent(
        '7 workloads admitted',
      );
    });

    it('shows the GPU device a DRA claim got, and its node, beside each pod', async () => {
      const api = backend();
      const clusterStatus = admittedStatus({ ready: true, replicas: 2 });
      clusterStatus.pods = clusterStatus.pods!.map((pod, i) =>
        i === 0
          ? {
              ...pod,
              devices: [
                {
                  claim: `${pod.name}-gpu-x7k2p`,
                  device: 'gpu-0-mig-1g10gb-19-3',
                  driver: 'gpu.nvidia.com',
                  pool: 'kwok-a100-mig-dra-0',
                },
              ],
            }
          : pod,
      );
      api.services.set(
        service.id,
        appliedSummariser({
          status: 'ready',
          reason: 'Available',
          statusReason: undefined,
          clusterStatus,
        }),
      );
      await renderCard(api);
      const rows = within(
        await screen.findByRole('table', { name: 'Pods (2)' }),
      ).getAllByRole('row');
      expect(
        within(rows[0])
          .getAllByRole('columnheader')
          .map(c => c.textContent),
      ).toEqual(['Pod', 'Node', 'GPU device', 'Phase', 'Ready', 'Restarts']);
      expect(within(rows[1]).getAllByRole('cell')[2]).toHaveTextContent(
        'gpu-0-mig-1g10gb-19-3 on kwok-a100-mig-dra-0',
      );
      expect(within(rows[2]).getAllByRole('cell')[2]).toHaveTextContent(
        'not allocated',
      );
    });

    it('says when the cluster could not be read and that the status is the last one stored', async () => {
      const api = backend();
      api.services.set(
        service.id,
        appliedSummariser({
          status: 'ready',
          reason: 'Available',
          statusReason: undefined,
          clusterStatus: unreadableStatus(),
        }),
      );
      await renderCard(api);

      expect(
        await screen.findByText('Warning: The cluster could not be read'),
      ).toBeInTheDocument();
      expect(
        screen.getByText(
          "The status shown is the last one stored, not what the cluster says now. The cluster 'gpu-eu' could not be read: no answer within 5000 ms.",
        ),
      ).toBeInTheDocument();
      expect(chip()).toHaveTextContent(/^Ready$/);
      expect(screen.getByTestId('cluster-status-observed')).toHaveTextContent(
        'Cluster gpu-eu, read attempted just now',
      );
      expect(screen.queryByTestId('cluster-pods')).not.toBeInTheDocument();
      expect(screen.queryByTestId('cluster-replicas')).not.toBeInTheDocument();
      // The rest of the card does not depend on the cluster.
      expect(
        await screen.findByTestId('figure-month-to-date'),
      ).toHaveTextContent('$280.07');
    });

    it('has no cluster section for a dry-run service, does not poll it, and shows its allocation as reserved', async () => {
      jest.useFakeTimers();
      const api = backend();
      api.services.set(service.id, summariserService());
      const spent = summariserCost(summariserUsage());
      // 24 hours of an L4 at $0.8048, and its 730-hour month: reserved, nothing spent.
      api.cost = async () => ({
        ...spent,
        accrualBasis: 'dry-run',
        allocationMicros: 0,
        usageMicros: undefined,
        idleMicros: undefined,
        idleShare: undefined,
        reservedMicros: spent.allocationMicros,
        allocatedHours: 0,
        reservedHours: 24,
        monthToDate: { ...spent.monthToDate, allocationMicros: 0 },
        projectedMonthMicros: 0,
      });
      await renderCard(api);
      expect(
        await screen.findByText(
          'dedicated on l4-ondemand · 1 replica, 1 GPU-equivalent · production · approved (dry run, no cluster)',
        ),
      ).toBeInTheDocument();
      expect(
        screen.queryByRole('heading', { name: 'In the cluster' }),
      ).not.toBeInTheDocument();
      await elapse(30_000);
      expect(api.callsOf('getService')).toHaveLength(1);
      const notice = await screen.findByTestId('accrual-notice');
      expect(notice).toHaveTextContent(
        'Reserved $587.50 a month — dry run, nothing is running',
      );
      expect(notice).toHaveTextContent('$19.32 reserved in 24h (24.0 h held)');
      expect(
        screen.queryByTestId('figure-month-to-date'),
      ).not.toBeInTheDocument();
      expect(
        screen.queryByTestId('figure-window-cost'),
      ).not.toBeInTheDocument();
    });

    it('polls every 5 s while starting, shows each step, and stops once the service is ready', async () => {
      jest.useFakeTimers();
      const api = backend();
      api.serviceAnswers.set(service.id, [
        appliedSummariser({
          statusReason: kueueReason,
          reason: 'KueuePending',
          clusterStatus: pendingAdmissionStatus(),
        }),
        appliedSummariser({
          statusReason: probeReason,
          reason: 'RolloutInProgress',
          clusterStatus: admittedStatus({ ready: false }),
        }),
        readySummariser(),
      ]);
      await renderCard(api);
      expect(
        await screen.findByTestId('cluster-status-chip'),
      ).toHaveTextContent('Starting: waiting for Kueue admission');
      const readsAtFirst = api.callsOf('getService').length;
      expect(readsAtFirst).toBe(1);

      // findBy* and waitFor advance fake time while they retry, so count from the first read.
      const [firstRead] = api.timesOf('getService');
      await elapse(4_900 - (Date.now() - firstRead));
      expect(api.callsOf('getService')).toHaveLength(1);
      await elapse(100);
      await waitFor(() =>
        expect(chip()).toHaveTextContent(/^Starting: waiting for the rollout$/),
      );
      const reads = api.timesOf('getService');
      expect(reads).toHaveLength(2);
      expect(reads[1] - reads[0]).toBe(5_000);
      expect(screen.getByTestId('cluster-status-reason')).toHaveTextContent(
        probeReason,
      );
      expect(screen.getByTestId('cluster-admission')).toHaveTextContent(
        'Admitted',
      );
      expect(
        within(screen.getByRole('table', { name: 'Pods (1)' })).getByText(
          'Running, not ready (ContainersNotReady)',
        ),
      ).toBeInTheDocument();

      await elapse(5_000 - (Date.now() - reads[1]));
      await waitFor(() => expect(chip()).toHaveTextContent(/^Ready$/));
      expect(api.callsOf('getService')).toHaveLength(3);
      expect(
        screen.getByTestId('cluster-status-observed'),
      ).not.toHaveTextContent('refreshes');

      await elapse(60_000);
      expect(api.callsOf('getService')).toHaveLength(3);
      // Polls do not reload usage and cost.
      expect(api.callsOf('getServiceUsage')).toEqual([[service.id, '24h']]);
      expect(api.callsOf('getServiceCost')).toEqual([[service.id, '24h']]);
    });

    it('keeps the last answer when a poll fails and polls again', async () => {
      jest.useFakeTimers();
      const api = backend();
      api.services.set(
        service.id,
        appliedSummariser({
          status: 'applying',
          reason: 'Applying',
          statusReason: undefined,
          clusterStatus: {
            ...pendingAdmissionStatus(),
            admission: undefined,
            pods: [],
          },
        }),
      );
      await renderCard(api);
      expect(
        await screen.findByTestId('cluster-status-chip'),
      ).toHaveTextContent('Applying: sending the manifests to the cluster');
      const getService = api.getService.bind(api);
      api.getService = jest
        .fn()
        .mockRejectedValueOnce(new Error('network down'))
        .mockImplementation(getService);
      await elapse(5_000);
      await waitFor(() =>
        expect(screen.getByTestId('service-refresh-error')).toHaveTextContent(
          'Could not refresh the service (network down); showing the previous answer and trying again.',
        ),
      );
      expect(chip()).toHaveTextContent('Applying');
      api.services.set(
        service.id,
        appliedSummariser({
          status: 'failed',
          reason: 'ApplyFailed',
          statusReason:
            'Apply failed: deployments.apps "summariser" is forbidden: exceeded quota: ml-serving-quota',
          clusterStatus: { ...pendingAdmissionStatus(), pods: [] },
        }),
      );
      await elapse(5_000);
      await waitFor(() =>
        expect(chip()).toHaveTextContent(
          /^Failed: the cluster refused the apply$/,
        ),
      );
      expect(
        screen.queryByTestId('service-refresh-error'),
      ).not.toBeInTheDocument();
      expect(screen.getByTestId('cluster-status-reason')).toHaveTextContent(
        'exceeded quota: ml-serving-quota',
      );
      const reads = (api.getService as jest.Mock).mock.calls.length;
      await elapse(30_000);
      expect((api.getService as jest.Mock).mock.calls.length).toBe(reads);
    });
  });
});
