// @ts-check

/** Statuses of services whose spec reached the cluster. */
const APPLIED = new Set(['starting', 'ready', 'deleting']);

/**
 * Services record why they have their status as a reason code (`SERVICE_REASONS` in gpu-common), the generation of
 * their spec, the generation last applied, and when the status or reason last changed: what their Kubernetes-style
 * conditions are derived from.
 *
 * Existing rows get the reason their status and stored sentence imply (the one place that reads those sentences), the
 * generation 1, that generation as applied when they reached the cluster, and their last write as the transition.
 *
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.alterTable('services', table => {
    table
      .string('reason', 40)
      .notNullable()
      .defaultTo('Applying')
      .comment('Why the service has its status: a code of SERVICE_REASONS');
    table
      .integer('generation')
      .notNullable()
      .defaultTo(1)
      .comment('Spec generation: 1 at creation, one more at every change');
    table
      .integer('observed_generation')
      .nullable()
      .comment('Spec generation last applied to the cluster; null if none');
    table
      .timestamp('status_changed_at', { useTz: true })
      .nullable()
      .comment('When the status or its reason last changed');
  });
  const rows = await knex('services').select(
    'id',
    'status',
    'status_reason',
    'mode',
    'updated_at',
  );
  for (const row of rows) {
    const reason = legacyReason(row.status, row.status_reason ?? '', row.mode);
    await knex('services')
      .where({ id: row.id })
      .update({
        reason,
        observed_generation: APPLIED.has(row.status) ? 1 : null,
        status_changed_at: row.updated_at,
      });
  }
};

/**
 * The reason code of a service written before reasons were recorded.
 *
 * @param {string} status
 * @param {string} sentence
 * @param {string} mode
 */
function legacyReason(status, sentence, mode) {
  switch (status) {
    case 'pending-approval':
      return 'AwaitingApproval';
    case 'rejected':
      return 'Rejected';
    case 'approved':
      return mode === 'gitops' ? 'RenderedForGitOps' : 'DryRun';
    case 'applying':
      return 'Applying';
    case 'ready':
      return 'Available';
    case 'deleting':
      return 'Deleting';
    case 'deleted':
      return sentence.startsWith('Deleted, but objects') ? 'DeletedWithLeftovers' : 'Deleted';
    case 'failed':
      if (sentence.startsWith('Teardown failed')) return 'TeardownFailed';
      if (sentence.startsWith('Interrupted')) return 'ApplyInterrupted';
      return 'ApplyFailed';
    case 'starting': {
      const cause = sentence.replace(/^Availability lost: /, '');
      if (cause.startsWith('Waiting for Kueue admission')) return 'KueuePending';
      if (/^Pod \S+ cannot be scheduled/.test(cause)) return 'Unschedulable';
      if (/^Pod \S+: (ErrImagePull|ImagePullBackOff|InvalidImageName)/.test(cause)) {
        return 'ImagePullBackOff';
      }
      if (/^Pod \S+: (Create|Run)Container/.test(cause)) return 'ContainerConfigError';
      if (/^Pod \S+: /.test(cause)) return 'CrashLoopBackOff';
      if (/^Deployment \S+ is not in the cluster/.test(cause)) return 'DeploymentMissing';
      if (cause.startsWith('Applied;')) return 'Applied';
      if (cause.startsWith('Waiting for the Deployment')) return 'RolloutInProgress';
      return 'WarningEvent';
    }
    default:
      return 'Applying';
  }
}

/**
 * @param {import('knex').Knex} knex
 */
exports.down = async function down(knex) {
  await knex.schema.alterTable('services', table => {
    table.dropColumn('reason');
    table.dropColumn('generation');
    table.dropColumn('observed_generation');
    table.dropColumn('status_changed_at');
  });
};
