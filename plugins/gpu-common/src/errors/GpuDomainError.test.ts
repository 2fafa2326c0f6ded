import { InputError, serializeError } from '@backstage/errors';
import { GpuDomainError, isGpuDomainError } from './GpuDomainError';
import { listAllowed } from './listAllowed';

describe('GpuDomainError', () => {
  it('is an InputError carrying a code and the allowed values', () => {
    const error = new GpuDomainError('UNKNOWN_TIER', 'Unknown tier "x"', {
      allowed: ['dedicated', 'mig'],
    });
    expect(error).toBeInstanceOf(InputError);
    expect(error.name).toBe('InputError');
    expect(error.code).toBe('UNKNOWN_TIER');
    expect(error.allowed).toEqual(['dedicated', 'mig']);
    expect(isGpuDomainError(error)).toBe(true);
    expect(isGpuDomainError(new InputError('plain'))).toBe(false);
    expect(serializeError(error)).toMatchObject({
      name: 'InputError',
      message: 'Unknown tier "x"',
      code: 'UNKNOWN_TIER',
    });
  });

  it('lists allowed values in prose', () => {
    expect(listAllowed([])).toBe('none');
    expect(listAllowed(['a'])).toBe('a');
    expect(listAllowed(['a', 'b'])).toBe('a or b');
    expect(listAllowed(['a', 'b', 'c'])).toBe('a, b or c');
  });
});
