import { act, render, screen } from '@testing-library/react';
import { RELATIVE_TIME_REFRESH_MS, RelativeTime } from './RelativeTime';

describe('RelativeTime', () => {
  beforeEach(() => {
    jest.useFakeTimers();
    jest.setSystemTime(new Date('2026-12-02T10:00:00Z'));
  });
  afterEach(() => jest.useRealTimers());

  it('keeps up with the clock while the page stays open', () => {
    render(<RelativeTime iso="2026-12-02T09:58:00Z" />);
    const time = screen.getByText('2 minutes ago');
    expect(time).toHaveAttribute('dateTime', '2026-12-02T09:58:00Z');
    expect(time).toHaveAttribute('title', '2026-12-02 09:58 UTC');

    act(() => {
      jest.advanceTimersByTime(3 * 60_000);
    });
    expect(screen.getByText('5 minutes ago')).toBeInTheDocument();
    act(() => {
      jest.advanceTimersByTime(RELATIVE_TIME_REFRESH_MS);
    });
    expect(screen.getByText('5 minutes ago')).toBeInTheDocument();
    act(() => {
      jest.advanceTimersByTime(RELATIVE_TIME_REFRESH_MS);
    });
    expect(screen.getByText('6 minutes ago')).toBeInTheDocument();
  });
});
