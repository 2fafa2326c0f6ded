import { estimateSliceThroughput } from '../cost/estimateSliceThroughput';
import { GpuDomainError } from '../errors';
import { demoPlatformConfig } from '../platform/demoPlatformConfig';
import { parsePlatform } from '../platform/parsePlatform';
import { quoteService } from '../quote/quoteService';
import { validateServiceRequest } from '../service/validateServiceRequest';
import { summariserOnDedicatedL4, summariserRequest } from '../testUtils';
import { fitSlices } from './fitSlices';

const platform = parsePlatform(demoPlatformConfig);

// Llama-3.1-8B in bf16 on an L4 (24 GiB) at --gpu-memory-utilization 0.90, from the parameters:
const GIB = 2 ** 30;
const available = 24 * GIB * 0.9;
const weights = 8.03e9 * 2;
const overhead = 0.5 * GIB + 0.03 * weights;
const kvBudget = available - weights - overhead; // 6.11 GB
const kvPerToken = 2 * 32 * 8 * 128 * 2; // K and V x layers x KV heads x head dim x 2 bytes = 128 KiB
const sequenceBytes = 8192 * kvPerToken; // 1 GiB per 8,192-token sequence
const l4Sequences = Math.floor(kvBudget / sequenceBytes); // 5

function l4Fit(concurrentSequences?: number) {
  return fitSlices(platform, {
    ...summariserOnDedicatedL4,
    ...(concurrentSequences !== undefined ? { concurrentSequences } : {}),
  })[0];
}

describe('concurrent full-length sequences', () => {
  it('counts the sequences of the requested length the KV budget holds at once', () => {
    expect(l4Sequences).toBe(5);
    const fit = l4Fit();
    expect(fit.kvCacheBudgetBytes).toBeCloseTo(kvBudget, 0);
    expect(fit.fullLengthSequences).toBe(l4Sequences);
    // Without a stated need, 64 sequences of --max-num-seqs still fit: vLLM pages and preempts.
    expect(fit.fits).toBe(true);
  });

  it('fits a slice that holds the requested sequences, and not one that holds fewer, saying why', () => {
    expect(l4Fit(l4Sequences).fits).toBe(true);
    const short = l4Fit(l4Sequences + 1);
    expect(short.fits).toBe(false);
    expect(short.reason).toBe(
      '1 x L4 holds 5 sequences of 8192 tokens at once (6.1 GB of KV cache, 1.1 GB each); 6 are requested',
    );
  });

  it('lists such a slice as unavailable in the quote and keeps larger ones', () => {
    const quote = quoteService(
      platform,
      { ...summariserRequest, concurrentSequences: 8 },
      { reservedGpuUnits: {}, committedMonthlyCost: 0 },
    );
    const l4 = quote.unavailable.find(
      u => u.slice.pool === 'l4-ondemand' && u.slice.gpusPerReplica === 1,
    )!;
    expect(l4.reason).toMatch(
      /^1 x L4 holds 5 sequences of 8192 tokens at once/,
    );
    expect(
      quote.options.some(
        o => o.slice.pool === 'l4-ondemand' && o.slice.gpusPerReplica === 1,
      ),
    ).toBe(false);
    expect(quote.options.length).toBeGreaterThan(0);
    for (const option of quote.options) {
      expect(option.fullLengthSequences).toBeGreaterThanOrEqual(8);
    }
  });

  it('estimates throughput at the stated sequences, not at --max-num-seqs', () => {
    const request = { ...summariserOnDedicatedL4, concurrentSequences: 4 };
    const fit = fitSlices(platform, request)[0];
    // Batch 4 at the assumed 1,024-token average context: 4 x 300 GB/s x 0.8 / (weights + 4 x 1,024 x 128 KiB).
    const expected = (4 * 300e9 * 0.8) / (weights + 4 * 1024 * kvPerToken);
    expect(estimateSliceThroughput(platform, request, fit)).toBeCloseTo(
      expected,
      6,
    );
    // --max-num-seqs 64 is lowered to what the budget holds at 1,024 tokens: floor(6.11 GB / 128 MiB) = 45.
    const batch = Math.floor(kvBudget / (1024 * kvPerToken));
    expect(batch).toBe(45);
    expect(
      estimateSliceThroughput(platform, summariserOnDedicatedL4, fit),
    ).toBeCloseTo(
      (batch * 300e9 * 0.8) / (weights + batch * 1024 * kvPerToken),
      6,
    );
  });
});

describe('validating concurrentSequences', () => {
  it('refuses more sequences than the engine runs at once', () => {
    const run = () =>
      validateServiceRequest(platform, {
        ...summariserOnDedicatedL4,
        concurrency: 16,
        concurrentSequences: 32,
      });
    expect(run).toThrow(GpuDomainError);
    expect(run).toThrow(
      'concurrentSequences 32 is above concurrency 16: the engine runs at most concurrency (--max-num-seqs) sequences at once; allowed: 1 to 16',
    );
  });

  it('refuses a count below 1 or not whole, naming the field', () => {
    expect(() =>
      validateServiceRequest(platform, {
        ...summariserOnDedicatedL4,
        concurrentSequences: 0,
      }),
    ).toThrow(/concurrentSequences/);
    expect(() =>
      validateServiceRequest(platform, {
        ...summariserOnDedicatedL4,
        concurrentSequences: 2.5,
      }),
    ).toThrow(/concurrentSequences/);
  });

  it('keeps a valid one', () => {
    expect(
      validateServiceRequest(platform, {
        ...summariserOnDedicatedL4,
        concurrentSequences: 4,
      }).concurrentSequences,
    ).toBe(4);
  });
});
