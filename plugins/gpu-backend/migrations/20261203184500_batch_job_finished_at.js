// @ts-check

/**
 * The cost export reads the batch jobs whose reservation overlaps its period: those still active or finished after
 * its first day, submitted before its end. Without an index on when they finished, that was every batch job ever
 * recorded; with (finished_at, submitted_at), the jobs finished before the period are never read (an active job's
 * finished_at is null, found in the same index).
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.alterTable('batch_jobs', table => {
    table.index(
      ['finished_at', 'submitted_at'],
      'batch_jobs_finished_submitted_idx',
    );
  });
};

/**
 * @param {import('knex').Knex} knex
 */
exports.down = async function down(knex) {
  await knex.schema.alterTable('batch_jobs', table => {
    table.dropIndex([], 'batch_jobs_finished_submitted_idx');
  });
};
