// @ts-check

/**
 * Daily cost snapshots of batch jobs, beside the services' (`cost_snapshots`): what a batch job's reservation held on
 * one UTC day at its pool's price, and the GPU-hours that is. Money is integer micro-dollars; one row per batch job
 * and day.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.createTable('batch_job_cost_snapshots', table => {
    table.comment(
      'Cost of one batch job over one UTC day, stored by the daily snapshot task',
    );
    // No foreign key to batch_jobs: a stored day is history, and the batch_jobs migration stays reversible on its own.
    table
      .uuid('batch_job_id')
      .notNullable()
      .comment('Batch job the cost belongs to (batch_jobs.id)');
    table.string('day', 10).notNullable().comment('UTC day, YYYY-MM-DD');
    table.string('team').notNullable().comment('Team charged');
    table.string('pool').notNullable().comment('Pool the batch job held');
    table
      .double('gpu_hours')
      .notNullable()
      .comment('GPU-hours its reservation held that day');
    table
      .bigInteger('allocation_micros')
      .notNullable()
      .comment('What it held that day at the pool price, micro-dollars');
    table
      .timestamp('created_at', { useTz: true })
      .notNullable()
      .comment('When the snapshot was written');
    table.primary(['batch_job_id', 'day']);
    table.index(['team', 'day'], 'batch_job_cost_snapshots_team_day_idx');
  });
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.schema.dropTable('batch_job_cost_snapshots');
};
