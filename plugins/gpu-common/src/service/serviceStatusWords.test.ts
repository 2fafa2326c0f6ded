import { serviceStatusInWords } from './serviceStatusWords';

describe('serviceStatusInWords', () => {
  it('says each status in words, never its key', () => {
    expect(serviceStatusInWords('pending-approval')).toBe(
      'waiting for approval',
    );
    expect(serviceStatusInWords('applying')).toBe('being applied');
    expect(serviceStatusInWords('deleting')).toBe('being deleted');
  });
});
