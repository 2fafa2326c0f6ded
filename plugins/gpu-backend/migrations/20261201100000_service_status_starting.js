// @ts-check

const BEFORE =
  'pending-approval | approved | applying | ready | failed | rejected | deleting | deleted';
const AFTER =
  'pending-approval | approved | applying | starting | ready | failed | rejected | deleting | deleted';

/** @param {import('knex').Knex} knex */
function isPostgres(knex) {
  return (
    knex.client.config.client === 'pg' || knex.client.dialect === 'postgresql'
  );
}

/**
 * Services gain the status `starting` (applied, the Deployment not available yet). The column is a plain string, so
 * only its description changes; SQLite keeps no column comments.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  if (isPostgres(knex)) {
    await knex.raw(`COMMENT ON COLUMN services.status IS '${AFTER}'`);
  }
};

/**
 * @param {import('knex').Knex} knex
 */
exports.down = async function down(knex) {
  if (isPostgres(knex)) {
    await knex.raw(`COMMENT ON COLUMN services.status IS '${BEFORE}'`);
  }
};
