import { PlatformFinding } from '@gpu-platform/backstage-plugin-gpu-common';
import { LiveClusterCheck } from './LiveClusterCheck';
import { PlatformChecks } from './PlatformChecks';

const finding = (where: string): PlatformFinding => ({
  id: 'gpu-nodes-untainted',
  severity: 'error',
  source: 'cluster',
  cluster: 'prod',
  where,
  message: 'GPU node without a NoSchedule taint',
  fix: 'taint it',
});

/** A live check of cluster `prod` that answers `answers` in turn, counting its readings. */
function liveCheck(answers: (PlatformFinding[] | Error)[]) {
  const readings = { count: 0 };
  const check = {
    cluster: 'prod',
    check: async () => {
      const answer = answers[Math.min(readings.count, answers.length - 1)];
      readings.count++;
      if (answer instanceof Error) throw answer;
      return answer;
    },
  } as unknown as LiveClusterCheck;
  return { check, readings };
}

function checksAt(live: LiveClusterCheck, clock: { ms: number }) {
  return new PlatformChecks({
    configFindings: [],
    clusters: [],
    live: [live],
    store: { listServices: async () => [] },
    maxAgeMs: 10_000,
    now: () => new Date(clock.ms),
  });
}

describe('PlatformChecks', () => {
  it('answers the requests of the next 10 seconds, and those under way at once, with one reading', async () => {
    const { check, readings } = liveCheck([
      [finding('Node gpu-1')],
      [finding('Node gpu-2')],
    ]);
    const clock = { ms: Date.parse('2026-12-01T10:00:00Z') };
    const checks = checksAt(check, clock);

    const [first, second] = await Promise.all([checks.run(), checks.run()]);
    expect(readings.count).toBe(1);
    expect(second).toBe(first);
    expect(first.checkedAt).toBe('2026-12-01T10:00:00.000Z');

    clock.ms += 9_999;
    expect((await checks.run()).findings[0].where).toBe('Node gpu-1');
    expect(readings.count).toBe(1);

    clock.ms += 1;
    const later = await checks.run();
    expect(readings.count).toBe(2);
    expect(later.findings[0].where).toBe('Node gpu-2');
    expect(later.checkedAt).toBe('2026-12-01T10:00:10.000Z');
  });

  it('keeps no reading that failed: the next request reads again', async () => {
    const { check, readings } = liveCheck([
      new Error('the store is down'),
      [finding('Node gpu-1')],
    ]);
    const checks = checksAt(check, { ms: 0 });
    await expect(checks.run()).rejects.toThrow('the store is down');
    expect((await checks.run()).findings).toEqual([finding('Node gpu-1')]);
    expect(readings.count).toBe(2);
  });
});
