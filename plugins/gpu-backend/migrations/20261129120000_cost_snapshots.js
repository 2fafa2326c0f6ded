// @ts-check

/**
 * Daily cost snapshots per service, so cost history outlives Prometheus retention. Money is integer micro-dollars;
 * one row per service and UTC day.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.createTable('cost_snapshots', table => {
    table.comment(
      'Cost of one service over one UTC day, stored by the daily snapshot task',
    );
    table
      .uuid('service_id')
      .notNullable()
      .references('id')
      .inTable('services')
      .onDelete('CASCADE')
      .comment('Service the cost belongs to');
    table.string('day', 10).notNullable().comment('UTC day, YYYY-MM-DD');
    table.string('team').notNullable().comment('Team charged');
    table.string('pool').notNullable().comment('Pool of the service that day');
    table.string('tier').notNullable().comment('Sharing tier that day');
    table
      .bigInteger('allocation_micros')
      .notNullable()
      .comment('Allocation cost of the day, micro-dollars');
    table
      .bigInteger('usage_micros')
      .nullable()
      .comment(
        'Usage cost (allocation x utilisation); null when metrics were unavailable',
      );
    table
      .bigInteger('idle_micros')
      .nullable()
      .comment('Allocation - usage; null when metrics were unavailable');
    table
      .double('utilisation')
      .nullable()
      .comment('Attributed utilisation of the day, 0 to 1');
    table
      .string('method')
      .nullable()
      .comment(
        'How utilisation was attributed (measured, apportioned-by-tokens, ...)',
      );
    table
      .double('generated_tokens')
      .nullable()
      .comment('Output tokens generated that day');
    table
      .timestamp('created_at', { useTz: true })
      .notNullable()
      .comment('When the snapshot was written or last completed');
    table.primary(['service_id', 'day']);
    table.index(['team', 'day'], 'cost_snapshots_team_day_idx');
  });
};

/** @param {import('knex').Knex} knex */
exports.down = async function down(knex) {
  await knex.schema.dropTable('cost_snapshots');
};
