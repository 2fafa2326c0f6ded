import { estimateDecodeThroughput } from './estimateDecodeThroughput';

const llama8b = {
  weightsBytes: 16.06e9,
  kvBytesPerToken: 131_072,
  concurrency: 64,
  maxModelLen: 8192,
};

describe('estimateDecodeThroughput', () => {
  it('is bandwidth x efficiency x batch / bytes per step', () => {
    // L4, 6 GB of KV budget: 1,024-token sequences of 128 KiB/token hold 44 sequences.
    const tokens = estimateDecodeThroughput({
      ...llama8b,
      gpuModel: 'L4',
      bandwidthShare: 1,
      kvBudgetBytes: 6e9,
    })!;
    const step = 16.06e9 + 44 * 1024 * 131_072;
    expect(tokens).toBeCloseTo((44 * 300e9 * 0.8) / step, 6);
    expect(tokens).toBeGreaterThan(400);
    expect(tokens).toBeLessThan(600);
  });

  it('scales with the GPU share and the batch', () => {
    const whole = estimateDecodeThroughput({
      ...llama8b,
      gpuModel: 'A100-80GB',
      bandwidthShare: 1,
    })!;
    const slice = estimateDecodeThroughput({
      ...llama8b,
      gpuModel: 'A100-80GB',
      bandwidthShare: 3 / 7,
    })!;
    expect(slice / whole).toBeCloseTo(3 / 7, 10);
    const single = estimateDecodeThroughput({
      ...llama8b,
      concurrency: 1,
      gpuModel: 'A100-80GB',
      bandwidthShare: 1,
    })!;
    expect(single).toBeLessThan(whole);
  });

  it('has no estimate for GPU models without a known bandwidth', () => {
    expect(
      estimateDecodeThroughput({
        ...llama8b,
        gpuModel: 'X1',
        bandwidthShare: 1,
      }),
    ).toBeUndefined();
  });
});
