import fc from 'fast-check';
import { clusterQueueName } from './queueNames';
import { stableName } from './stableName';

const DNS1123 = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

describe('stableName', () => {
  it('keeps names that are already valid and short enough', () => {
    expect(stableName(['summariser', 'model-cache'])).toBe(
      'summariser-model-cache',
    );
    expect(clusterQueueName('batch')).toBe('gpu-batch');
  });

  it('truncates long names and appends a hash of the full input', () => {
    const long = stableName(['a'.repeat(70)]);
    expect(long).toMatch(/^a{54}-[0-9a-f]{8}$/);
    expect(stableName(['a'.repeat(70)])).toBe(long);
    expect(stableName(['a'.repeat(71)])).not.toBe(long);
  });

  it('sanitises what is not DNS-1123', () => {
    expect(stableName(['My_Service'])).toMatch(/^my-service-[0-9a-f]{8}$/);
    expect(stableName(['---'])).toMatch(/^x[0-9a-f]{8}$/);
  });

  it('always gives a DNS-1123 label within the limit, the same for the same parts', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string(), { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 12, max: 63 }),
        (parts, max) => {
          const name = stableName(parts, max);
          expect(name.length).toBeLessThanOrEqual(max);
          expect(name).toMatch(DNS1123);
          expect(stableName([...parts], max)).toBe(name);
        },
      ),
    );
  });
});
