import { AuditorService } from '@backstage/backend-plugin-api';
import { JsonObject } from '@backstage/types';
import express from 'express';

/**
 * Runs a mutation as one event of Backstage's auditor service (besides the plugin's own audit table): the event
 * is created before the change, at severity medium (a write endpoint), and marked as succeeded or failed with it.
 * Event ids follow the catalog's style: `<subject>-mutate` with the kind of change in `meta.actionType`. Actions of
 * the Actions Registry have no request of their own (`req` undefined): the MCP or scaffolder caller's event has it.
 */
export async function audited<T>(
  auditor: AuditorService,
  req: express.Request<any, any, any, any> | undefined,
  eventId: string,
  meta: JsonObject & { actionType: string },
  change: () => Promise<T>,
): Promise<T> {
  const event = await auditor.createEvent({
    eventId,
    severityLevel: 'medium',
    request: req,
    meta,
  });
  try {
    const result = await change();
    await event.success();
    return result;
  } catch (error) {
    await event.fail({ error: error as Error });
    throw error;
  }
}
