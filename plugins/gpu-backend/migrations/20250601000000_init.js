// @ts-check

/**
 * Services, their quota reservations, approvals, team quotas and the audit trail.
 *
 * GPU amounts are integers in units of 1/5040 GPU-equivalent (5040 = 7!, so MIG
 * sevenths, A30 quarters and every sharing replica count up to 10 are exact);
 * money is integer micro-dollars.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.createTable('services', table => {
    table.comment('GPU model services requested through the gpu plugin');
    table.uuid('id').primary().notNullable().comment('Service id');
    table
      .string('name', 63)
      .notNullable()
      .comment('DNS-1123 name the rendered objects derive from');
    table.string('team').notNullable().comment('Owning team (catalog group)');
    table.string('namespace', 63).notNullable().comment('Target namespace');
    table
      .string('entity_ref')
      .nullable()
      .comment('Catalog entity the service belongs to');
    table.string('environment').notNullable().comment('e.g. dev, production');
    table.string('tier').notNullable().comment('GPU sharing tier');
    table.string('pool').notNullable().comment('GPU pool (ResourceFlavor)');
    table
      .string('status')
      .notNullable()
      .comment(
        'pending-approval | approved | applying | ready | failed | rejected | deleting | deleted',
      );
    table
      .text('status_reason')
      .nullable()
      .comment('Why the service is in its status (e.g. the cluster message)');
    table.text('request').notNullable().comment('The service request, JSON');
    table.text('placement').notNullable().comment('Chosen placement, JSON');
    table
      .text('quote')
      .nullable()
      .comment('Quote summary at the time of the request, JSON');
    table
      .text('manifests')
      .nullable()
      .comment('Rendered Kubernetes objects, JSON array');
    table
      .string('cluster')
      .nullable()
      .comment('Cluster name; empty in dry-run mode');
    table.string('mode').notNullable().comment('apply | gitops | dry-run');
    table
      .string('request_key')
      .nullable()
      .comment('Client-supplied idempotency key, unique per team');
    table.string('created_by').notNullable().comment('Entity ref of creator');
    table
      .timestamp('created_at', { useTz: true })
      .notNullable()
      .comment('Creation time');
    table
      .string('updated_by')
      .notNullable()
      .comment('Entity ref of the last writer');
    table
      .timestamp('updated_at', { useTz: true })
      .notNullable()
      .comment('Last change');
    table.unique(['team', 'request_key'], {
      indexName: 'services_team_request_key_uniq',
    });
    table.index(['team', 'status'], 'services_team_status_idx');
  });
  // One live service per name and namespace; deleted and rejected ones keep their record.
  await knex.raw(
    `CREATE UNIQUE INDEX services_live_name_uniq ON services (namespace, name)
     WHERE status NOT IN ('deleted', 'rejected')`,
  );

  await knex.schema.createTable('team_quotas', table => {
    table.comment(
      'Per-team allowance; its row is the lock for quota decisions',
    );
    table.string('team').primary().notNullable().comment('Team name');
    table
      .bigInteger('monthly_budget_micros')
      .notNullable()
      .comment('Monthly budget in micro-dollars');
    table.string('updated_by').notNullable().comment('Entity ref of writer');
    table
      .timestamp('updated_at', { useTz: true })
      .notNullable()
      .comment('Last change');
  });

  await knex.schema.createTable('pool_quotas', table => {
    table.comment('Nominal GPU quota of a team in one pool');
    table
      .string('team')
      .notNullable()
      .references('team')
      .inTable('team_quotas')
      .onDelete('CASCADE')
      .comment('Team name');
    table.string('pool').notNullable().comment('Pool name');
    table
      .bigInteger('nominal_gpu_units')
      .notNullable()
      .comment('Nominal quota in 1/5040 GPU-equivalents');
    table.primary(['team', 'pool']);
  });

  await knex.schema.createTable('reservations', table => {
    table.comment('Quota ledger: what each service holds or asks to hold');
    table.uuid('id').primary().notNullable().comment('Reservation id');
    table
      .uuid('service_id')
      .notNullable()
      .references('id')
      .inTable('services')
      .onDelete('CASCADE')
      .comment('Service the reservation belongs to');
    table.string('team').notNullable().comment('Team charged');
    table.string('pool').notNullable().comment('Pool charged');
    table
      .bigInteger('gpu_units')
      .notNullable()
      .comment('GPU amount in 1/5040 GPU-equivalents');
    table
      .bigInteger('monthly_cost_micros')
      .notNullable()
      .comment('Projected monthly cost in micro-dollars');
    table
      .string('state')
      .notNullable()
      .comment(
        'pending (awaits approval, not counted) | held (counted) | released',
      );
    table
      .timestamp('created_at', { useTz: true })
      .notNullable()
      .comment('Creation time');
    table
      .timestamp('held_at', { useTz: true })
      .nullable()
      .comment('When the reservation started counting');
    table
      .timestamp('released_at', { useTz: true })
      .nullable()
      .comment('When the reservation stopped counting');
    table.index(['team', 'state'], 'reservations_team_state_idx');
    table.index(['service_id'], 'reservations_service_idx');
  });

  await knex.schema.createTable('approvals', table => {
    table.comment('Requests outside policy waiting for an approver');
    table.uuid('id').primary().notNullable().comment('Approval id');
    table
      .uuid('service_id')
      .notNullable()
      .references('id')
      .inTable('services')
      .onDelete('CASCADE')
      .comment('Service concerned');
    table
      .uuid('reservation_id')
      .notNullable()
      .references('id')
      .inTable('reservations')
      .onDelete('CASCADE')
      .comment('Reservation held on approval, released on rejection');
    table.string('team').notNullable().comment('Team of the service');
    table
      .string('kind')
      .notNullable()
      .comment('create (a new service) | change (a PATCH of a live one)');
    table
      .text('reasons')
      .notNullable()
      .comment('Why approval is needed, JSON array of {code, message}');
    table
      .text('proposal')
      .nullable()
      .comment('For a change: the service fields it sets, JSON');
    table
      .string('state')
      .notNullable()
      .comment('pending | approved | rejected');
    table.string('requested_by').notNullable().comment('Entity ref');
    table
      .timestamp('requested_at', { useTz: true })
      .notNullable()
      .comment('Creation time');
    table.string('decided_by').nullable().comment('Entity ref of the approver');
    table
      .timestamp('decided_at', { useTz: true })
      .nullable()
      .comment('Decision time');
    table.text('comment').nullable().comment('Approver comment');
    table.index(['state'], 'approvals_state_idx');
    table.index(['service_id'], 'approvals_service_idx');
  });

  await knex.schema.createTable('audit_events', table => {
    table.comment('Every state change: who, what, when, before and after');
    table.bigIncrements('id').primary().comment('Monotonic event id');
    table.timestamp('at', { useTz: true }).notNullable().comment('Event time');
    table.string('actor').notNullable().comment('Entity ref of the actor');
    table.string('action').notNullable().comment('e.g. service.create');
    table
      .string('subject_type')
      .notNullable()
      .comment('service | reservation | approval | quota');
    table.string('subject_id').notNullable().comment('Id of the subject');
    table.string('team').nullable().comment('Team concerned, for filtering');
    table.text('before').nullable().comment('Subject before, JSON');
    table.text('after').nullable().comment('Subject after, JSON');
    table.index(['subject_type', 'subject_id'], 'audit_events_subject_idx');
    table.index(['team'], 'audit_events_team_idx');
  });
};

/**
 * @param {import('knex').Knex} knex
 */
exports.down = async function down(knex) {
  await knex.schema.dropTable('audit_events');
  await knex.schema.dropTable('approvals');
  await knex.schema.dropTable('reservations');
  await knex.schema.dropTable('pool_quotas');
  await knex.schema.dropTable('team_quotas');
  await knex.schema.dropTable('services');
};
