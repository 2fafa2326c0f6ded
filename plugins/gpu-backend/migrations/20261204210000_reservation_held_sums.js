// @ts-check

/**
 * What every team holds on a pool, per MIG profile (pool capacity: admission in every create's transaction, and the
 * quotes' snapshot after a create), was summed from the index on (state, pool, mig_profile, gpu_units): one index
 * entry per held reservation of the pool, twice per create, so a create got slower with every service the pool holds.
 *
 * `reservation_held_sums` keeps those sums, one row per pool and profile ('' outside MIG), written by triggers on
 * `reservations` in the same transaction as the reservation: every write (insert, a change of state, pool, profile or
 * units, delete and cascade) is counted, whichever code path makes it. On PostgreSQL a writer holds the row of its
 * pool and profile until it commits; creates already queue on the pool's advisory lock before they insert.
 *
 * A later migration that makes knex rebuild `reservations` on SQLite (dropping or altering a column) drops the
 * triggers with the old table and must create them again.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.createTable('reservation_held_sums', table => {
    table.comment(
      'What held reservations hold per pool and MIG profile, kept by triggers on reservations',
    );
    table.string('pool').notNullable().comment('Pool');
    table
      .string('mig_profile')
      .notNullable()
      .comment("MIG profile; '' outside the mig tier");
    table
      .bigInteger('gpu_units')
      .notNullable()
      .comment('Sum of gpu_units of the held reservations');
    table
      .integer('reservations')
      .notNullable()
      .comment('Number of held reservations');
    table.primary(['pool', 'mig_profile']);
  });
  await knex.raw(`
    insert into reservation_held_sums (pool, mig_profile, gpu_units, reservations)
    select pool, coalesce(mig_profile, ''), sum(gpu_units), count(*)
    from reservations where state = 'held'
    group by pool, coalesce(mig_profile, '')`);
  if (isPostgres(knex)) {
    await knex.raw(`
      create function reservation_held_sums_apply() returns trigger language plpgsql as $$
      begin
        if tg_op in ('UPDATE', 'DELETE') and old.state = 'held' then
          update reservation_held_sums
          set gpu_units = gpu_units - old.gpu_units, reservations = reservations - 1
          where pool = old.pool and mig_profile = coalesce(old.mig_profile, '');
        end if;
        if tg_op in ('INSERT', 'UPDATE') and new.state = 'held' then
          insert into reservation_held_sums as sums (pool, mig_profile, gpu_units, reservations)
          values (new.pool, coalesce(new.mig_profile, ''), new.gpu_units, 1)
          on conflict (pool, mig_profile) do update
          set gpu_units = sums.gpu_units + excluded.gpu_units, reservations = sums.reservations + 1;
        end if;
        return null;
      end $$`);
    await knex.raw(`
      create trigger reservation_held_sums after insert or update or delete on reservations
      for each row execute function reservation_held_sums_apply()`);
    return;
  }
  const add = (row = 'new') => `
    insert into reservation_held_sums (pool, mig_profile, gpu_units, reservations)
    values (${row}.pool, coalesce(${row}.mig_profile, ''), ${row}.gpu_units, 1)
    on conflict (pool, mig_profile) do update
    set gpu_units = gpu_units + excluded.gpu_units, reservations = reservations + 1;`;
  const subtract = `
    update reservation_held_sums
    set gpu_units = gpu_units - old.gpu_units, reservations = reservations - 1
    where pool = old.pool and mig_profile = coalesce(old.mig_profile, '');`;
  // An update that moves a held reservation runs both (in either order: the sums commute).
  for (const [name, event, when, body] of [
    ['insert', 'insert', "new.state = 'held'", add()],
    ['update_old', 'update', "old.state = 'held'", subtract],
    ['update_new', 'update', "new.state = 'held'", add()],
    ['delete', 'delete', "old.state = 'held'", subtract],
  ]) {
    await knex.raw(`
      create trigger reservation_held_sums_${name} after ${event} on reservations
      for each row when ${when}
      begin ${body} end`);
  }
};

/**
 * @param {import('knex').Knex} knex
 */
exports.down = async function down(knex) {
  if (isPostgres(knex)) {
    await knex.raw(
      'drop trigger if exists reservation_held_sums on reservations',
    );
    await knex.raw('drop function if exists reservation_held_sums_apply()');
  } else {
    for (const name of ['insert', 'update_old', 'update_new', 'delete']) {
      await knex.raw(`drop trigger if exists reservation_held_sums_${name}`);
    }
  }
  await knex.schema.dropTable('reservation_held_sums');
};

/** @param {import('knex').Knex} knex */
function isPostgres(knex) {
  return (
    knex.client.config.client === 'pg' || knex.client.dialect === 'postgresql'
  );
}
