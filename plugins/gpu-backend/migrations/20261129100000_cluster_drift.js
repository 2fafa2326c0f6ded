// @ts-check

/**
 * The last Kueue reconciliation per cluster: what drifted and whether it was applied.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.createTable('cluster_drift', table => {
    table.comment('Last Kueue reconciliation of each configured cluster');
    table.string('cluster').primary().notNullable().comment('Cluster name');
    table
      .timestamp('checked_at', { useTz: true })
      .notNullable()
      .comment('When the reconciler last ran for the cluster');
    table
      .text('report')
      .notNullable()
      .comment('The report (mode, objects, drifted objects, message), JSON');
  });
};

/**
 * @param {import('knex').Knex} knex
 */
exports.down = async function down(knex) {
  await knex.schema.dropTable('cluster_drift');
};
