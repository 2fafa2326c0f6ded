#!/usr/bin/env node
// The app config of a two-cluster fleet for `scripts/start --cluster --fleet`, printed as YAML: the pools and
// environments of the given app-config files, each pool on `local` (the dev cluster) or, when it is named in
// GPU_FLEET_PROD_POOLS (default l4-ondemand,h100), on `prod-local`; production may use prod-* only, the other
// environments local only. Read after app-config.local-fleet.yaml, which names the two clusters.
//
//   node scripts/fleet-config.js app-config.yaml [app-config.local.yaml ...] > <state dir>/app-config.fleet.yaml
const { createRequire } = require('node:module');
const fs = require('node:fs');
const path = require('node:path');

const YAML = createRequire(
  path.join(__dirname, '../plugins/gpu-backend/package.json'),
)('yaml');

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error(
    'usage: fleet-config.js <app-config.yaml> [more app-config files]',
  );
  process.exit(2);
}
// Later files win, key by key for objects and whole for arrays, as Backstage merges them.
let pools;
let environments;
for (const file of files) {
  const gpu = YAML.parse(fs.readFileSync(file, 'utf8'))?.gpu ?? {};
  pools = gpu.pools ?? pools;
  environments = gpu.environments ?? environments;
}
if (!pools || !environments) {
  console.error(`No gpu.pools or gpu.environments in ${files.join(', ')}`);
  process.exit(1);
}
const prodPools = new Set(
  (process.env.GPU_FLEET_PROD_POOLS ?? 'l4-ondemand,h100').split(','),
);
const fleet = {
  gpu: {
    pools: pools.map(pool => ({
      ...pool,
      cluster: prodPools.has(pool.name) ? 'prod-local' : 'local',
    })),
    environments: environments.map(environment => ({
      ...environment,
      clusters: environment.name === 'production' ? ['prod-*'] : ['local'],
    })),
  },
};
process.stdout.write(
  `# Written by scripts/fleet-config.js from ${files
    .map(f => path.basename(f))
    .join(', ')}; do not edit.\n${YAML.stringify(fleet)}`,
);
