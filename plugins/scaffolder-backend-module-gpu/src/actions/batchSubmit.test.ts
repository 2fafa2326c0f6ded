import {
  coreServices,
  createServiceFactory,
  DiscoveryService,
} from '@backstage/backend-plugin-api';
import {
  mockCredentials,
  mockServices,
  startTestBackend,
} from '@backstage/backend-test-utils';
import { demoPlatformConfig } from '@gpu-platform/backstage-plugin-gpu-common';
// The action is tested against the real gpu backend plugin, which a module may not import outside tests.
/* eslint-disable @backstage/no-mixed-plugin-imports */
import gpuPlugin from '@gpu-platform/backstage-plugin-gpu-backend';
import { databaseClosedOnShutdown } from '@gpu-platform/backstage-plugin-gpu-backend/testUtils';
/* eslint-enable @backstage/no-mixed-plugin-imports */
import { AddressInfo } from 'node:net';
import yaml from 'yaml';
import {
  createCheckpointingContext,
  mockContext,
  outputsOf,
} from '../__testUtils__/actionContext';
import { createBatchSubmitAction } from './batchSubmit';
import { examples } from './batchSubmit.examples';

jest.setTimeout(60_000);

/** The real gpu backend on the demo platform (dry-run cluster), the caller a member of `groups`. */
async function gpuBackend(groups: string[]): Promise<DiscoveryService> {
  const { server } = await startTestBackend({
    features: [
      databaseClosedOnShutdown,
      gpuPlugin,
      mockServices.rootConfig.factory({ data: { gpu: demoPlatformConfig } }),
      createServiceFactory({
        service: coreServices.userInfo,
        deps: {},
        factory: () =>
          mockServices.userInfo({
            userEntityRef: mockCredentials.user().principal.userEntityRef,
            ownershipEntityRefs: groups.map(g => `group:default/${g}`),
          }),
      }),
    ],
  });
  const baseUrl = `http://localhost:${
    (server.address() as AddressInfo).port
  }/api/gpu`;
  return {
    getBaseUrl: async () => baseUrl,
    getExternalBaseUrl: async () => baseUrl,
  };
}

const inputOf = (i: number) => yaml.parse(examples[i].example).steps[0].input;

describe('gpu:batch:submit against the gpu backend', () => {
  let action: ReturnType<typeof createBatchSubmitAction>;

  beforeAll(async () => {
    action = createBatchSubmitAction({
      discovery: await gpuBackend(['search']),
      auth: mockServices.auth(),
    });
  });

  it('submits the OCR example: the Job on the team’s queue, six pods at once on a quota of 6 spot GPUs', async () => {
    const ctx = mockContext(inputOf(0));
    await action.handler(ctx);
    const out = outputsOf(ctx);
    expect(out).toMatchObject({
      name: 'ocr-backlog',
      namespace: 'batch',
      pool: 'spot-l4',
      mode: 'dry-run',
      // In words for the template's result, which printed '(dry-run)' before.
      modeText: 'rendered only: no cluster is configured',
      podsAtOnce: 6,
    });
    expect(out.manifests[0]).toMatchObject({
      kind: 'Job',
      metadata: { labels: { 'kueue.x-k8s.io/queue-name': 'gpu-search' } },
      spec: { completions: 600, parallelism: 12, suspend: true },
    });
  });

  it('renders the GitOps example for the repository, with its minimum parallelism and exit codes', async () => {
    const ctx = mockContext(inputOf(1));
    await action.handler(ctx);
    const out = outputsOf(ctx);
    expect(out.mode).toBe('gitops');
    expect(out.modeText).toBe(
      'delivered through a pull request to the GitOps repository',
    );
    expect(out.batchId).toMatch(/^[0-9a-f-]{36}$/);
    expect(out.manifests[0].metadata.annotations).toEqual({
      'kueue.x-k8s.io/job-min-parallelism': '2',
    });
    expect(
      out.manifests[0].spec.podFailurePolicy.rules[1].onExitCodes.values,
    ).toEqual([42, 43]);
  });

  it('submits once when the task is retried', async () => {
    const store = new Map<string, unknown>();
    const input = { ...inputOf(1), name: 'retried' };
    const first = createCheckpointingContext(input, store);
    await action.handler(first);
    const second = createCheckpointingContext(input, store);
    await action.handler(second);
    expect(outputsOf(second).batchId).toBe(outputsOf(first).batchId);
  });

  it('only renders in a dry run of the template', async () => {
    const ctx = mockContext(
      { ...inputOf(1), mode: undefined },
      { isDryRun: true },
    );
    await action.handler(ctx);
    expect(outputsOf(ctx)).toMatchObject({
      batchId: 'dry-run',
      mode: 'dry-run',
    });
  });

  it.each([
    [
      { name: 'OCR_backlog' },
      "Invalid input to gpu:batch:submit: name: must be a DNS-1123 label: lower-case letters, digits and '-'",
    ],
    [
      { completions: 0 },
      'Invalid input to gpu:batch:submit: completions: Number must be greater than or equal to 1',
    ],
    [
      { pool: 'l4-ondemand' },
      'Pool "l4-ondemand" is on-demand with none sharing; batch jobs run on spot pools with whole GPUs: spot-l4',
    ],
    [
      { minParallelism: 8 },
      "Team search's quota on spot-l4 is 6 GPUs: it holds 6 pods of 1 GPU at once, fewer than the 8 the Job needs at least",
    ],
  ])('fails with an InputError for %j', async (change, message) => {
    const error = await action
      .handler(mockContext({ ...inputOf(0), ...change }))
      .catch(e => e);
    expect(error.name).toBe('InputError');
    expect(error.message).toContain(message);
  });
  // A user of another team is refused by the backend's permission check (gpu-backend batchJobsRoutes.test.ts).
});
