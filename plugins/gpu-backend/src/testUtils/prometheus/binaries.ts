import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * A `prometheus` and `promtool` pair of one version.
 *
 * @public
 */
export interface PrometheusBinaries {
  /** e.g. `2.42.0+ds` (Debian) or `3.16.0`, as `prometheus --version` reports it. */
  version: string;
  major: number;
  prometheus: string;
  promtool: string;
}

/**
 * The Prometheus installations the integration tests run against, and the required majors that are missing.
 *
 * @public
 */
export interface PrometheusVersionsUnderTest {
  available: PrometheusBinaries[];
  /** Messages for each major of `GPU_REQUIRE_PROMETHEUS` that no binary directory provides. */
  missing: string[];
}

function readVersion(prometheus: string): string {
  const out = execFileSync(prometheus, ['--version'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const match = /version (\d+\.\d+\.\d+\S*)/.exec(out);
  if (!match) throw new Error(`${prometheus} --version: ${out.slice(0, 200)}`);
  return match[1];
}

/**
 * Reads the Prometheus installations to test against from the environment:
 *
 * - `GPU_PROMETHEUS_BINARIES`: directories, separated by `:`, each holding `prometheus` and `promtool` (e.g.
 *   `/usr/bin` for Debian's 2.x and the directory `scripts/prometheus3 bin` prints). Default: the directory of
 *   `PROMETHEUS_BIN` or `/usr/bin`.
 * - `GPU_REQUIRE_PROMETHEUS`: majors that must be among them, separated by `,` (e.g. `2,3`, as `scripts/test` sets):
 *   a missing one is reported in `missing`, so the suites fail instead of skipping it.
 *
 * @public
 */
export function prometheusVersionsUnderTest(
  env: NodeJS.ProcessEnv = process.env,
): PrometheusVersionsUnderTest {
  const dirs = (
    env.GPU_PROMETHEUS_BINARIES ??
    (env.PROMETHEUS_BIN ? dirname(env.PROMETHEUS_BIN) : '/usr/bin')
  )
    .split(':')
    .filter(Boolean);
  const available: PrometheusBinaries[] = [];
  const problems: string[] = [];
  for (const dir of dirs) {
    const prometheus = join(dir, 'prometheus');
    const promtool = join(dir, 'promtool');
    if (!existsSync(prometheus) || !existsSync(promtool)) {
      problems.push(`${dir} has no prometheus and promtool`);
      continue;
    }
    try {
      const version = readVersion(prometheus);
      available.push({
        version,
        major: Number(version.split('.')[0]),
        prometheus,
        promtool,
      });
    } catch (error) {
      problems.push(String(error));
    }
  }
  const required = (env.GPU_REQUIRE_PROMETHEUS ?? '')
    .split(',')
    .map(s => s.trim())
    .filter(Boolean)
    .map(Number);
  const missing = required
    .filter(major => !available.some(b => b.major === major))
    .map(
      major =>
        `Prometheus ${major}.x is required (GPU_REQUIRE_PROMETHEUS=${
          env.GPU_REQUIRE_PROMETHEUS
        }) but GPU_PROMETHEUS_BINARIES (${dirs.join(':')}) has none${
          problems.length ? `: ${problems.join('; ')}` : ''
        }`,
    );
  return { available, missing };
}
