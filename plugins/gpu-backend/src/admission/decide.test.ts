import { ConflictError } from '@backstage/errors';
import { storePlatform } from '../database/__testUtils__/storePlatform';
import { governanceContext } from './context';
import { assess, decide } from './decide';
import { AdmissionSnapshot } from './snapshot';

const UNITS = 5040;
const NOW = new Date('2026-12-15T00:00:00Z');

/** ml holds `teamGpus` of its `quotaGpus` on h100 (8 GPUs); every team holds `poolGpus` there. */
function snapshot(options: {
  quotaGpus: number;
  teamGpus: number;
  poolGpus: number;
}): AdmissionSnapshot {
  return {
    ledger: {
      team: 'ml',
      pool: 'h100',
      nominalGpuUnits: options.quotaGpus * UNITS,
      heldGpuUnits: options.teamGpus * UNITS,
      monthlyBudgetMicros: 1_000_000_000_000,
      heldMonthlyCostMicros: 0,
    },
    month: {
      month: '2026-12',
      monthToDate: 0,
      heldRestOfMonth: 0,
      secondsLeft: 17 * 86400,
    },
    poolHeld: { units: options.poolGpus * UNITS, unitsByProfile: {} },
    now: NOW,
  };
}

const gpus = (n: number) => ({
  gpuUnits: n * UNITS,
  monthlyCostMicros: n * 5_000_000_000,
});

describe('admission on one snapshot (no database)', () => {
  const approval = governanceContext(storePlatform, { clock: () => NOW });
  const refuse = governanceContext(storePlatform, {
    clock: () => NOW,
    whenOverPoolCapacity: 'refuse',
  });

  it('admits what fits the quota and the pool', () => {
    const assessment = assess(
      approval,
      snapshot({ quotaGpus: 4, teamGpus: 0, poolGpus: 4 }),
      gpus(4),
      undefined,
    );
    expect(assessment.capacity.fits).toBe(true);
    expect(decide(approval, { whenOverQuota: 'reject' }, assessment)).toEqual({
      pending: false,
      reasons: [],
    });
  });

  it('sends a request within quota beyond the free capacity to approval, or refuses it, by the policy', () => {
    const full = snapshot({ quotaGpus: 4, teamGpus: 0, poolGpus: 6 });
    const assessment = assess(approval, full, gpus(3), undefined);
    expect(assessment.reasons).toEqual([]);
    expect(assessment.capacity).toMatchObject({
      fits: false,
      freeGpuEquivalents: 2,
    });
    expect(decide(approval, { whenOverQuota: 'reject' }, assessment)).toEqual({
      pending: true,
      reasons: [
        {
          code: 'over-pool-capacity',
          message: expect.stringMatching(
            /^Over the free capacity of pool 'h100'/,
          ),
        },
      ],
    });
    expect(() =>
      decide(
        refuse,
        { whenOverQuota: 'require-approval' },
        assess(refuse, full, gpus(3), undefined),
      ),
    ).toThrow(ConflictError);
  });

  it('refuses over quota first when the caller rejects over quota, whatever the pool', () => {
    const assessment = assess(
      approval,
      snapshot({ quotaGpus: 2, teamGpus: 2, poolGpus: 2 }),
      gpus(1),
      undefined,
    );
    expect(() =>
      decide(approval, { whenOverQuota: 'reject' }, assessment),
    ).toThrow(
      /Team 'ml' asks for 1 GPU-equivalents in pool 'h100' but only 0 of 2 are free/,
    );
    expect(
      decide(
        approval,
        { whenOverQuota: 'require-approval' },
        assessment,
      ).reasons.map(r => r.code),
    ).toEqual(['over-quota']);
  });
});
