// @ts-check

/**
 * What every team holds on a pool, per MIG profile, is what admission and quotes read on every request (pool
 * capacity). It was read by joining every held reservation to its service for the profile in `services.placement`:
 * at 10,000 services, tens of milliseconds of SQLite per request. A reservation now records the MIG profile it holds
 * (null outside the `mig` tier), as it records its pool, and an index on (state, pool, mig_profile, gpu_units)
 * answers the sums from the index alone.
 *
 * Existing reservations take their service's profile: a reservation holds its service's placement (a change waiting
 * for approval keeps the held one and the service's placement until it is approved; then both are replaced in one
 * transaction), so for every held reservation it is the profile the join read.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.alterTable('reservations', table => {
    table
      .string('mig_profile')
      .nullable()
      .comment(
        'MIG profile the reservation holds (the mig tier), e.g. 1g.10gb; null for the other tiers',
      );
  });
  const services = await knex('services')
    .select('id', 'placement')
    .where('placement', 'like', '%migProfile%');
  for (const service of services) {
    const profile = JSON.parse(service.placement).migProfile;
    if (typeof profile === 'string') {
      await knex('reservations')
        .where({ service_id: service.id })
        .update({ mig_profile: profile });
    }
  }
  await knex.schema.alterTable('reservations', table => {
    table.index(
      ['state', 'pool', 'mig_profile', 'gpu_units'],
      'reservations_state_pool_profile_idx',
    );
  });
};

/**
 * @param {import('knex').Knex} knex
 */
exports.down = async function down(knex) {
  await knex.schema.alterTable('reservations', table => {
    table.dropIndex([], 'reservations_state_pool_profile_idx');
    table.dropColumn('mig_profile');
  });
};
