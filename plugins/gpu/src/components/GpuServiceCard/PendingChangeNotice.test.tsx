import { GpuServicePendingChange } from '@gpu-platform/backstage-plugin-gpu-common';
import { render, screen } from '@testing-library/react';
import { PendingChangeNotice } from './PendingChangeNotice';

describe('PendingChangeNotice', () => {
  const mergeBy = '2026-12-02T10:00:00.000Z';
  const change: GpuServicePendingChange = {
    generation: 2,
    pullRequest: {
      url: 'https://git.example.com/ops/gitops/pulls/7',
      number: 7,
      mergeBy,
    },
    createdBy: 'user:default/alice',
    createdAt: '2026-12-02T08:00:00.000Z',
    previous: {
      tier: 'dedicated',
      pool: 'l4-ondemand',
      cluster: 'gitops-eu',
      model: 'qwen2.5-7b',
      replicas: 1,
    },
    proposed: {
      tier: 'mig',
      pool: 'a100-mig',
      cluster: 'gitops-eu',
      model: 'qwen2.5-7b',
      replicas: 2,
    },
  };

  it('says "Change pending" with what changes and a link to its pull request', () => {
    render(
      <PendingChangeNotice
        service={{
          pendingChange: change,
          status: 'ready',
          reason: 'ChangePending',
        }}
      />,
    );
    const notice = screen.getByTestId('pending-change-notice');
    expect(notice).toHaveTextContent(/^Change pending: /);
    expect(screen.getByTestId('pending-change-fields')).toHaveTextContent(
      ': tier dedicated → mig, pool l4-ondemand → a100-mig, replicas 1 → 2',
    );
    expect(screen.getByRole('link', { name: '#7' })).toHaveAttribute(
      'href',
      'https://git.example.com/ops/gitops/pulls/7',
    );
    expect(
      screen.getByText(new Date(mergeBy).toLocaleString()),
    ).toHaveAttribute('datetime', mergeBy);
    expect(notice).toHaveTextContent(
      'Until then the cluster runs the previous spec, as Git holds it.',
    );
  });

  it('before its pull request is recorded, says when the change is rolled back; drift is not called pending', () => {
    const confirmBy = '2026-12-02T08:30:00.000Z';
    render(
      <PendingChangeNotice
        service={{
          pendingChange: { ...change, pullRequest: undefined, confirmBy },
          status: 'ready',
          reason: 'DriftedFromGit',
        }}
      />,
    );
    const notice = screen.getByTestId('pending-change-notice');
    expect(notice).toHaveTextContent(
      'Waiting for the template run that requested it to open its pull request; otherwise rolled back at',
    );
    expect(screen.queryByRole('link')).toBeNull();
    expect(
      screen.getByText(new Date(confirmBy).toLocaleString()),
    ).toHaveAttribute('datetime', confirmBy);
    expect(notice).not.toHaveTextContent('Until then');
  });

  it('shows nothing without a pending change, or for a service being deleted', () => {
    for (const service of [
      { status: 'ready' as const, reason: 'Available' as const },
      {
        pendingChange: change,
        status: 'deleting' as const,
        reason: 'Deleting' as const,
      },
    ]) {
      const { container, unmount } = render(
        <PendingChangeNotice service={service} />,
      );
      expect(container).toBeEmptyDOMElement();
      unmount();
    }
  });
});
