// @ts-check

/**
 * A GitOps service records the pull (merge) request that delivers it, and its reservation follows that request: it is
 * kept once merged, rolled back when the request is closed without merging, and expires at `merge_by` when not merged
 * by then. Existing rows have none (null).
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.alterTable('services', table => {
    table
      .string('pull_request_url', 2048)
      .nullable()
      .comment(
        'GitOps: web address of the pull (merge) request that delivers the service',
      );
    table
      .integer('pull_request_number')
      .nullable()
      .comment('Its number on the forge (the merge request iid on GitLab)');
    table
      .string('pull_request_state', 16)
      .nullable()
      .comment(
        'open, merged, closed (without merging) or expired (not merged by merge_by)',
      );
    table
      .timestamp('merge_by', { useTz: true })
      .nullable()
      .comment(
        'While the pull request is open: when the reservation expires unless it is merged',
      );
    table.index(['pull_request_state'], 'services_pull_request_state_idx');
  });
};

/**
 * @param {import('knex').Knex} knex
 */
exports.down = async function down(knex) {
  await knex.schema.alterTable('services', table => {
    table.dropIndex(['pull_request_state'], 'services_pull_request_state_idx');
    table.dropColumn('merge_by');
    table.dropColumn('pull_request_state');
    table.dropColumn('pull_request_number');
    table.dropColumn('pull_request_url');
  });
};
