// @ts-check

/**
 * A service moving to another cluster (a change to a pool of another cluster) records the cluster it leaves: its
 * objects there keep serving until it is available on the new cluster (`cluster`), then they are removed and the
 * column is cleared. Null for every existing row (none is moving).
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.alterTable('services', table => {
    table
      .string('moving_from_cluster')
      .nullable()
      .comment(
        'While the service moves to another cluster: the cluster it leaves, whose objects are removed once it is available on the new one',
      );
  });
};

/**
 * @param {import('knex').Knex} knex
 */
exports.down = async function down(knex) {
  await knex.schema.alterTable('services', table => {
    table.dropColumn('moving_from_cluster');
  });
};
