// @ts-check

/**
 * One ledger for everything that holds GPUs: a batch job submitted to a cluster (apply) or to the GitOps repository
 * holds a reservation in `reservations`, as a service does, so team quota, budget, pool capacity and month spend
 * count it. `batch_jobs` records the Job (what the release sweep reads back from its cluster, what the cost export
 * names), and a reservation belongs either to a service (`service_id`) or to a batch job (`batch_job_id`).
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.createTable('batch_jobs', table => {
    table.comment('GPU batch jobs submitted in apply or GitOps mode');
    table
      .uuid('id')
      .primary()
      .notNullable()
      .comment('Batch id (the Job label)');
    table.string('name').notNullable().comment('Job name');
    table.string('namespace').notNullable().comment('Job namespace');
    table.string('team').notNullable().comment('Team charged');
    table.string('environment').notNullable().comment('Environment');
    table.string('pool').notNullable().comment('Pool the Job runs on');
    table
      .string('cluster')
      .nullable()
      .comment('Cluster the Job was applied to; null for the default one');
    table.string('mode').notNullable().comment('apply | gitops');
    table
      .integer('pods_at_once')
      .notNullable()
      .comment('Pods the reservation holds at once');
    table.integer('gpus_per_pod').notNullable().comment('GPUs per pod');
    table
      .string('state')
      .notNullable()
      .comment('active (its reservation counts) | finished (released)');
    table.string('submitted_by').notNullable().comment('Entity ref');
    table
      .timestamp('submitted_at', { useTz: true })
      .notNullable()
      .comment('Submission time');
    table
      .timestamp('finished_at', { useTz: true })
      .nullable()
      .comment('When its reservation was released');
    table
      .string('finish_reason', 1000)
      .nullable()
      .comment('Why it was released (succeeded, failed, gone, apply failed)');
    table.index(['state'], 'batch_jobs_state_idx');
    table.index(['team'], 'batch_jobs_team_idx');
  });
  await knex.schema.alterTable('reservations', table => {
    table
      .uuid('batch_job_id')
      .nullable()
      .references('id')
      .inTable('batch_jobs')
      .onDelete('CASCADE')
      .comment(
        'Batch job the reservation belongs to (service_id is then null)',
      );
    table.index(['batch_job_id'], 'reservations_batch_job_idx');
  });
  await knex.schema.alterTable('reservations', table => {
    table.setNullable('service_id');
  });
};

/**
 * @param {import('knex').Knex} knex
 */
exports.down = async function down(knex) {
  await knex('reservations').whereNotNull('batch_job_id').delete();
  await knex.schema.alterTable('reservations', table => {
    table.dropIndex([], 'reservations_batch_job_idx');
    table.dropForeign(['batch_job_id']);
  });
  await knex.schema.alterTable('reservations', table => {
    table.dropColumn('batch_job_id');
    table.dropNullable('service_id');
  });
  await knex.schema.dropTable('batch_jobs');
};
