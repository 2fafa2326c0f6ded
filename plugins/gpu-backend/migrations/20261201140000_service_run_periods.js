// @ts-check

/**
 * Periods in which a service's workload ran, as its cluster said (apply mode): cost accrues from these, a reservation
 * held outside them is reserved, not spent. At most one period of a service is open (`stopped_at` null); the code
 * that writes them locks the service row first.
 *
 * Services in apply mode that were applied before this table existed get one period over their held time (basis
 * `reservation`), so their past cost stays what it was; a `starting` one gets none (it is not running).
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.createTable('service_run_periods', table => {
    table.comment(
      'When the workload of a service ran, from its cluster status (apply mode)',
    );
    table.increments('id').comment('Row id');
    table
      .uuid('service_id')
      .notNullable()
      .references('id')
      .inTable('services')
      .onDelete('CASCADE')
      .comment('Service that ran');
    table
      .timestamp('started_at', { useTz: true })
      .notNullable()
      .comment(
        "When it started running: the Deployment's Available transition, else when the cluster was read",
      );
    table
      .string('started_basis')
      .notNullable()
      .comment('deployment-available | observed');
    table
      .timestamp('stopped_at', { useTz: true })
      .nullable()
      .comment('When it stopped running; null while it runs');
    table
      .string('stop_reason', 1000)
      .nullable()
      .comment(
        'Why it stopped (torn down, Kueue eviction, no available replica, ...)',
      );
    table.index(
      ['service_id', 'started_at'],
      'service_run_periods_service_idx',
    );
  });
  const held = await knex('reservations')
    .join('services', 'services.id', 'reservations.service_id')
    .where('services.mode', 'apply')
    .whereIn('services.status', ['ready', 'failed', 'deleting', 'deleted'])
    .whereNotNull('reservations.held_at')
    .select(
      'services.id as service_id',
      'services.status as status',
      'reservations.held_at as held_at',
      'reservations.released_at as released_at',
    );
  /** @type {Map<string, { started: number, stopped: number | null }>} */
  const periods = new Map();
  /** Epoch milliseconds of a timestamp as the drivers return it (Date, epoch number or string). */
  const ms = (/** @type {unknown} */ value) => {
    if (value instanceof Date) return value.getTime();
    const text = String(value);
    if (typeof value === 'number' || /^\d+$/.test(text)) return Number(value);
    // SQLite's CURRENT_TIMESTAMP form ('YYYY-MM-DD HH:MM:SS') is UTC.
    return Date.parse(text.includes('T') ? text : `${text.replace(' ', 'T')}Z`);
  };
  for (const row of held) {
    const started = ms(row.held_at);
    const released = row.released_at === null ? null : ms(row.released_at);
    const live = row.status === 'ready' || row.status === 'failed';
    const period = periods.get(row.service_id);
    const stopped = live ? null : released;
    if (!period) {
      periods.set(row.service_id, { started, stopped });
    } else {
      period.started = Math.min(period.started, started);
      period.stopped =
        period.stopped === null || stopped === null
          ? null
          : Math.max(period.stopped, stopped);
    }
  }
  for (const [serviceId, period] of periods) {
    await knex('service_run_periods').insert({
      service_id: serviceId,
      started_at: new Date(period.started),
      started_basis: 'reservation',
      stopped_at: period.stopped === null ? null : new Date(period.stopped),
      stop_reason:
        period.stopped === null
          ? null
          : 'released before run periods were recorded',
    });
  }
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.schema.dropTable('service_run_periods');
};
