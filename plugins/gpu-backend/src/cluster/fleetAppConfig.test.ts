import { ConfigReader } from '@backstage/config';
import { readPlatformConfig } from '@gpu-platform/backstage-plugin-gpu-common';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { resolve } from 'node:path';
import YAML from 'yaml';
import { ClusterConfig } from './ClusterConfig';
import { resolveFleet } from './resolveFleet';

const ROOT = resolve(__dirname, '../../../..');
const read = (file: string) =>
  YAML.parse(fs.readFileSync(resolve(ROOT, file), 'utf8'));

describe('the config of ./scripts/start --cluster --fleet', () => {
  it('passes the fleet check: pools on local and prod-local, production on prod-* only', () => {
    const fleet = YAML.parse(
      execFileSync(
        process.execPath,
        [
          resolve(ROOT, 'scripts/fleet-config.js'),
          resolve(ROOT, 'app-config.yaml'),
        ],
        { encoding: 'utf8' },
      ),
    );
    // In the order scripts/start passes them; later files win as Backstage merges them.
    const config = ConfigReader.fromConfigs(
      [
        read('app-config.yaml'),
        read('app-config.local-cluster.yaml'),
        read('app-config.local-fleet.yaml'),
        fleet,
      ].map(data => ({ context: 'test', data })),
    );
    const clusters = ClusterConfig.fromConfig(config).list();
    expect(clusters.map(c => c.name)).toEqual(['local', 'prod-local']);
    const platform = resolveFleet(readPlatformConfig(config), clusters);
    expect(
      platform.pools.filter(p => p.cluster === 'prod-local').map(p => p.name),
    ).toEqual(['l4-ondemand', 'h100']);
    expect(
      platform.environments.find(e => e.name === 'production')?.clusters,
    ).toEqual(['prod-*']);
  });
});
