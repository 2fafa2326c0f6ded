import type { ServiceStatus } from '../api/types';

const STATUS_WORDS: Record<ServiceStatus, string> = {
  'pending-approval': 'waiting for approval',
  approved: 'approved',
  applying: 'being applied',
  starting: 'starting',
  ready: 'ready',
  failed: 'failed',
  rejected: 'rejected',
  deleting: 'being deleted',
  deleted: 'deleted',
};

/**
 * A service's typed status in words for people (`waiting for approval`, not the key `pending-approval`): what the
 * entity card, the governance page and the templates' results print.
 *
 * @public
 */
export function serviceStatusInWords(status: ServiceStatus): string {
  return STATUS_WORDS[status] ?? String(status);
}
