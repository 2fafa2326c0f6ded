// @ts-check

/**
 * A service recorded provisionally (by a template run that confirms it in its last step) carries the time it is
 * deleted and its quota released unless confirmed. Existing rows are confirmed (null).
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.alterTable('services', table => {
    table
      .timestamp('confirm_by', { useTz: true })
      .nullable()
      .comment(
        'While provisional: when the service is deleted unless confirmed; null once confirmed',
      );
    table.index(['confirm_by'], 'services_confirm_by_idx');
  });
};

/**
 * @param {import('knex').Knex} knex
 */
exports.down = async function down(knex) {
  await knex.schema.alterTable('services', table => {
    table.dropIndex(['confirm_by'], 'services_confirm_by_idx');
    table.dropColumn('confirm_by');
  });
};
