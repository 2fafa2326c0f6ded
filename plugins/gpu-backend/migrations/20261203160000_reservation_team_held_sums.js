// @ts-check

/**
 * What a team holds, on one pool and in all (admission in every create's transaction, and every quote's snapshot of
 * the team's quota), is summed from the team's held reservations. The index on (team, state) found them, then every
 * row was read for its pool, GPU units and monthly cost: one row per service the team holds, twice per create. With
 * the pool and both amounts in the index, the sums are answered from the index alone.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.alterTable('reservations', table => {
    table.index(
      ['team', 'state', 'pool', 'gpu_units', 'monthly_cost_micros'],
      'reservations_team_state_pool_amounts_idx',
    );
  });
};

/**
 * @param {import('knex').Knex} knex
 */
exports.down = async function down(knex) {
  await knex.schema.alterTable('reservations', table => {
    table.dropIndex([], 'reservations_team_state_pool_amounts_idx');
  });
};
