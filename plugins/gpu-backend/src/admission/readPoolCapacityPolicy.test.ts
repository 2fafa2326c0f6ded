import { ConfigReader } from '@backstage/config';
import { readPoolCapacityPolicy } from './readPoolCapacityPolicy';

describe('readPoolCapacityPolicy', () => {
  it('sends requests beyond a pool to approval unless configured', () => {
    expect(readPoolCapacityPolicy(new ConfigReader({}))).toBe('approval');
  });

  it.each(['refuse', 'approval'])('reads %s', policy => {
    expect(
      readPoolCapacityPolicy(
        new ConfigReader({
          gpu: { admission: { whenOverPoolCapacity: policy } },
        }),
      ),
    ).toBe(policy);
  });

  it('names the key and the values it takes when the value is wrong', () => {
    expect(() =>
      readPoolCapacityPolicy(
        new ConfigReader({
          gpu: { admission: { whenOverPoolCapacity: 'queue' } },
        }),
      ),
    ).toThrow(
      "Invalid gpu.admission.whenOverPoolCapacity 'queue': must be 'refuse' (answer 409, reserve nothing) or 'approval' (wait for an approver)",
    );
  });
});
