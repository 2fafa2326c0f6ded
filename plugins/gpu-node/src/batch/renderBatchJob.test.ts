import { demoPlatform, servingAndOcrBatchPlatform } from '../__testUtils__/platforms';
import { validateManifests } from '../__testUtils__/validateManifests';
import { batchPodsAtOnce } from './batchPodsAtOnce';
import { renderBatchJob } from './renderBatchJob';
import { BatchJobRequest } from './types';

const platform = servingAndOcrBatchPlatform();

/** The OCR backlog of the scheduling-and-cost article: 600 documents of 500 pages, one GPU per pod. */
const ocr: BatchJobRequest = {
  name: 'ocr-backlog',
  team: 'batch',
  environment: 'dev',
  pool: 'spot-l4',
  image: 'registry.example.com/ocr-worker:1.4.2',
  command: ['python', '-m', 'ocr.worker'],
  args: ['--pages-per-document', '500'],
  completions: 600,
  parallelism: 12,
  gpusPerPod: 1,
  backoffLimit: 6,
  env: { OUTPUT_BUCKET: 's3://ocr-out', INPUT_PREFIX: 's3://ocr-in/docs' },
};

describe('renderBatchJob', () => {
  it('renders the OCR backlog as an indexed, suspended Job on the batch team’s LocalQueue', () => {
    const job = renderBatchJob(platform, ocr, { batchId: 'b-1' });
    expect(job.metadata).toMatchObject({
      name: 'ocr-backlog',
      namespace: 'batch',
      labels: {
        'kueue.x-k8s.io/queue-name': 'gpu-batch',
        'kueue.x-k8s.io/priority-class': 'gpu-dev',
        'gpu.backstage.io/team': 'batch',
        'gpu.backstage.io/scope': 'batch',
        'gpu.backstage.io/batch-id': 'b-1',
        'gpu.backstage.io/pool': 'spot-l4',
      },
      annotations: { 'kueue.x-k8s.io/job-min-parallelism': '1' },
    });
    expect(job.spec).toMatchObject({
      completionMode: 'Indexed',
      completions: 600,
      parallelism: 12,
      suspend: true,
      backoffLimit: 6,
    });
  });

  it('does not count spot reclaims and fails at once on a non-retriable exit code', () => {
    const job = renderBatchJob(
      platform,
      { ...ocr, nonRetriableExitCodes: [3, 2, 3] },
      { batchId: 'b-1' },
    );
    expect(job.spec!.podFailurePolicy!.rules).toEqual([
      {
        action: 'Ignore',
        onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }],
      },
      {
        action: 'FailJob',
        onExitCodes: {
          containerName: 'worker',
          operator: 'In',
          values: [2, 3],
        },
      },
    ]);
    expect(job.spec!.template.spec!.restartPolicy).toBe('Never');
  });

  it('places pods on the spot pool with its GPU resource, node labels and tolerations', () => {
    const pod = renderBatchJob(
      platform,
      { ...ocr, gpusPerPod: 1 },
      { batchId: 'b' },
    ).spec!.template.spec!;
    expect(pod.nodeSelector).toEqual({
      'karpenter.sh/capacity-type': 'spot',
      'gpu.example.com/pool': 'spot-l4',
    });
    expect(pod.tolerations).toEqual([
      {
        key: 'nvidia.com/gpu',
        operator: 'Equal',
        value: 'present',
        effect: 'NoSchedule',
      },
    ]);
    expect(pod.containers[0].resources).toEqual({
      requests: { cpu: '4', memory: '8Gi', 'nvidia.com/gpu': '1' },
      limits: { memory: '16Gi', 'nvidia.com/gpu': '1' },
    });
    expect(pod.containers[0].env).toEqual([
      { name: 'INPUT_PREFIX', value: 's3://ocr-in/docs' },
      { name: 'OUTPUT_BUCKET', value: 's3://ocr-out' },
    ]);
  });

  it('asks for no partial admission when the Job runs one pod at a time or at its minimum', () => {
    expect(
      renderBatchJob(platform, { ...ocr, parallelism: 1 }, { batchId: 'b' })
        .metadata!.annotations,
    ).toBeUndefined();
    expect(
      renderBatchJob(
        platform,
        { ...ocr, parallelism: 6, minParallelism: 6 },
        { batchId: 'b' },
      ).metadata!.annotations,
    ).toBeUndefined();
  });

  it.each([
    [
      { pool: 'l4-ondemand' },
      'Pool "l4-ondemand" is on-demand with none sharing; batch jobs run on spot pools with whole GPUs: spot-l4',
    ],
    [{ pool: 'nope' }, 'Unknown pool "nope"'],
    [{ team: 'nobody' }, 'Unknown team "nobody"'],
    [
      { namespace: 'serving' },
      'Team "batch" may not run jobs in namespace "serving"; allowed: batch',
    ],
    [{ name: 'OCR_backlog' }, 'must be a DNS-1123 label'],
    [
      { parallelism: 601 },
      'parallelism must be a whole number from 1 to 600; got 601',
    ],
    [
      { minParallelism: 13 },
      'minParallelism must be a whole number from 1 to 12; got 13',
    ],
    [
      { gpusPerPod: 2 },
      'gpusPerPod (a spot-l4 node has 1) must be a whole number from 1 to 1; got 2',
    ],
    [
      { backoffLimit: -1 },
      'backoffLimit must be a whole number from 0 to 1000; got -1',
    ],
    [
      { nonRetriableExitCodes: [0] },
      'each of nonRetriableExitCodes must be a whole number from 1 to 255; got 0',
    ],
    [{ image: ' ' }, 'image must name a container image'],
    [
      { env: { ...ocr.env, NVIDIA_VISIBLE_DEVICES: 'all' } },
      'env NVIDIA_VISIBLE_DEVICES is not allowed: NVIDIA_* and CUDA_MPS_* variables choose the GPUs a container sees',
    ],
    [
      { env: { CUDA_MPS_ACTIVE_THREAD_PERCENTAGE: '100' } },
      'env CUDA_MPS_ACTIVE_THREAD_PERCENTAGE is not allowed',
    ],
  ] as Array<[Partial<BatchJobRequest>, string]>)(
    'refuses %j saying what is wrong',
    (change, message) => {
      expect(() =>
        renderBatchJob(platform, { ...ocr, ...change }, { batchId: 'b' }),
      ).toThrow(message);
    },
  );

  it('refuses shared pools, whose slices are not whole GPUs', () => {
    expect(() =>
      renderBatchJob(
        demoPlatform(),
        { ...ocr, team: 'ml-platform', pool: 'l4-mps' },
        { batchId: 'b' },
      ),
    ).toThrow(/on-demand with mps sharing/);
  });

  it('is valid for the Kubernetes API (schema and unknown fields)', () => {
    expect(
      validateManifests([
        renderBatchJob(platform, ocr, { batchId: 'b-1' }),
        renderBatchJob(
          platform,
          {
            ...ocr,
            name: 'bare',
            command: [],
            args: undefined,
            env: {},
            parallelism: 1,
          },
          { batchId: 'b-2' },
        ),
      ]),
    ).toEqual([]);
  });
});

describe('batchPodsAtOnce', () => {
  it('holds six one-GPU pods in a quota of six GPUs, three two-GPU pods, none above', () => {
    expect(batchPodsAtOnce(6 * 5040, 1)).toBe(6);
    expect(batchPodsAtOnce(6 * 5040, 2)).toBe(3);
    expect(batchPodsAtOnce(6 * 5040 - 1, 1)).toBe(5);
    expect(batchPodsAtOnce(0, 1)).toBe(0);
  });
});
