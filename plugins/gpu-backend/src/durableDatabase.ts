import { DatabaseService } from '@backstage/backend-plugin-api';
import { ClusterTarget } from './cluster';

/** Whether the plugin's database is SQLite in memory, which a restart empties. */
export async function isInMemoryDatabase(
  database: DatabaseService,
): Promise<boolean> {
  const knex = await database.getClient();
  const client = String(knex.client.config.client ?? '');
  if (!/sqlite/.test(client)) return false;
  const files: { name: string; file: string }[] = await knex.raw(
    'PRAGMA database_list',
  );
  return files.some(f => f.name === 'main' && !f.file);
}

/**
 * Refuses to start when a cluster is in apply mode and the database is SQLite in memory: after a restart the
 * services, reservations and approvals would be gone while the objects they applied keep running in the cluster,
 * and nothing would tear them down. Jest's in-process test backends (NODE_ENV=test) start from an empty database on
 * purpose and are let through.
 */
export async function assertDurableDatabaseForApply(options: {
  database: DatabaseService;
  clusters: ClusterTarget[];
  nodeEnv: string | undefined;
}): Promise<void> {
  if (options.nodeEnv === 'test') return;
  const applying = options.clusters.filter(c => c.mode === 'apply');
  if (applying.length === 0) return;
  if (!(await isInMemoryDatabase(options.database))) return;
  const names = applying.map(c => `'${c.name}'`).join(', ');
  throw new Error(
    `gpu.clusters ${names} ${
      applying.length === 1 ? 'is' : 'are'
    } in mode apply, but the gpu plugin's database is SQLite in memory: a restart would forget every service and reservation while their objects keep running in the cluster. Configure a durable database (backend.database with SQLite files, connection: { directory }, or PostgreSQL), or use mode dry-run or gitops.`,
  );
}
