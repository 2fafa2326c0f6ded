// @ts-check

/**
 * Approvals record what they grant beyond the team's quota and budget: GPU-equivalents over quota per pool and
 * their monthly cost, run-rate and month-to-date budget overage (JSON, `ApprovalOverage` of gpu-common). Written when
 * the approval is requested and again when it is approved; approvals recorded before have none.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.alterTable('approvals', table => {
    table
      .text('overage')
      .nullable()
      .comment(
        'JSON: GPUs and dollars beyond quota and budget, as requested and as granted on approval',
      );
  });
};

/**
 * @param {import('knex').Knex} knex
 */
exports.down = async function down(knex) {
  await knex.schema.alterTable('approvals', table => {
    table.dropColumn('overage');
  });
};
