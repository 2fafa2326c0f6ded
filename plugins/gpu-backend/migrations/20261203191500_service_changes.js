// @ts-check

/**
 * A change of a GitOps service delivered by a pull (merge) request is pending until that request is merged: the
 * spec, status and reservation the service had before it are kept here, so that a request closed without merging, not
 * merged in time, or never opened (the template run stopped before confirming it) restores them. One row per such
 * change; at most one `pending` per service (enforced under the service's row lock).
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.createTable('service_changes', table => {
    table.string('id', 36).primary();
    table.string('service_id', 36).notNullable();
    table
      .string('state', 16)
      .notNullable()
      .comment(
        'pending, merged, confirmed (kept without a request), closed, expired, unconfirmed (rolled back) or withdrawn',
      );
    table
      .text('previous')
      .notNullable()
      .comment(
        'JSON: tier, pool, cluster, request, placement, manifests, status, reason and statusReason before the change',
      );
    table
      .string('previous_reservation_id', 36)
      .nullable()
      .comment('The reservation the service held before the change');
    table
      .integer('generation')
      .notNullable()
      .comment('The spec generation the change produced');
    table
      .timestamp('confirm_by', { useTz: true })
      .nullable()
      .comment('Until its request is recorded: when it is rolled back');
    table.string('pull_request_url', 2048).nullable();
    table.integer('pull_request_number').nullable();
    table.timestamp('merge_by', { useTz: true }).nullable();
    table.string('created_by', 255).notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable();
    table.timestamp('settled_at', { useTz: true }).nullable();
    table.index(['service_id', 'state'], 'service_changes_service_state_idx');
    table.index(['state'], 'service_changes_state_idx');
  });
};

/**
 * @param {import('knex').Knex} knex
 */
exports.down = async function down(knex) {
  await knex.schema.dropTable('service_changes');
};
