import { render, screen } from '@testing-library/react';
import { ProvisionalNotice } from './ProvisionalNotice';

describe('ProvisionalNotice', () => {
  const confirmBy = '2026-12-02T09:00:00.000Z';

  it('says when an unconfirmed service is deleted', () => {
    render(<ProvisionalNotice service={{ confirmBy, status: 'applying' }} />);
    expect(screen.getByTestId('provisional-notice')).toHaveTextContent(
      /^Provisional: kept once the template run that requested it finishes; otherwise deleted, and its quota released, at .+\.$/,
    );
    expect(
      screen.getByText(new Date(confirmBy).toLocaleString()),
    ).toHaveAttribute('datetime', confirmBy);
  });

  it('shows nothing for a confirmed service, or one already being deleted', () => {
    for (const service of [
      { status: 'ready' as const },
      { confirmBy, status: 'deleting' as const },
      { confirmBy, status: 'deleted' as const },
    ]) {
      const { container, unmount } = render(
        <ProvisionalNotice service={service} />,
      );
      expect(container).toBeEmptyDOMElement();
      unmount();
    }
  });
});
