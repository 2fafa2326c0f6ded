// @ts-check

/**
 * A batch job submitted to a Kueue MultiKueue manager runs on whichever worker cluster admits it: `worker_cluster`
 * records that worker once the manager's Workload names it (`status.clusterName`), when its reservation moves to the
 * worker's pool; null for a Job that runs on the cluster it was applied to.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.alterTable('batch_jobs', table => {
    table
      .string('worker_cluster')
      .nullable()
      .comment(
        'MultiKueue worker cluster the Job ran on (manager Workload status.clusterName); null otherwise',
      );
  });
};

/**
 * @param {import('knex').Knex} knex
 */
exports.down = async function down(knex) {
  await knex.schema.alterTable('batch_jobs', table => {
    table.dropColumn('worker_cluster');
  });
};
