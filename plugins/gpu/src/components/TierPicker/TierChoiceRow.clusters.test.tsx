import { renderInTestApp } from '@backstage/frontend-test-utils';
import {
  demoPlatformConfig,
  parsePlatform,
  quoteService,
} from '@gpu-platform/backstage-plugin-gpu-common';
import Table from '@material-ui/core/Table';
import TableBody from '@material-ui/core/TableBody';
import { screen } from '@testing-library/react';
import { demoChoice } from './__testUtils__/demoQuotes';
import { TierChoiceRow } from './TierChoiceRow';

const demo = parsePlatform(demoPlatformConfig);

async function renderRow(fleet: boolean) {
  const platform = fleet
    ? {
        ...demo,
        pools: demo.pools.map(p => ({
          ...p,
          cluster: p.name === 'l4-ondemand' ? 'prod-eu' : 'dev',
        })),
      }
    : demo;
  const quote = quoteService(
    platform,
    {
      name: 'summariser',
      team: 'ml-platform',
      model: 'llama-3.1-8b',
      runtime: 'vllm',
      maxModelLen: 8192,
      concurrency: 16,
      replicas: 1,
      environment: 'dev',
    },
    { reservedGpuUnits: {}, committedMonthlyCost: 0 },
  );
  const { choice } = demoChoice(quote, 'dedicated/l4-ondemand', platform);
  await renderInTestApp(
    <Table>
      <TableBody>
        <TierChoiceRow choice={choice} selected={false} onSelect={() => {}} />
      </TableBody>
    </Table>,
  );
}

describe('TierChoiceRow on a fleet', () => {
  it('names the cluster of the option’s pool', async () => {
    await renderRow(true);
    expect(screen.getByTestId('choice-cluster')).toHaveTextContent(
      'cluster prod-eu',
    );
  });

  it('names no cluster when pools have none (dry-run)', async () => {
    await renderRow(false);
    expect(screen.queryByTestId('choice-cluster')).toBeNull();
  });
});
