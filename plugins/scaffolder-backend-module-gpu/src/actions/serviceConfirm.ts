import { AuthService, DiscoveryService } from '@backstage/backend-plugin-api';
import { ConflictError, InputError, NotFoundError } from '@backstage/errors';
import { createTemplateAction } from '@backstage/plugin-scaffolder-node';
import { GpuBackendClient } from '@gpu-platform/backstage-plugin-gpu-node';
import { z as zod } from 'zod/v3';
import { parseActionInput } from './parseActionInput';
import { examples } from './serviceConfirm.examples';

const ID = 'gpu:service:confirm';

/** The id `gpu:service:create` outputs in a dry run. */
const PREVIEW_ID = 'dry-run';

const inputFields = {
  serviceId: (z: typeof zod) =>
    z
      .string()
      .min(1)
      .describe(
        'Id of the GPU service a gpu:service:create step created with provisional: true (its serviceId output)',
      ),
  pullRequestUrl: (z: typeof zod) =>
    z
      .string()
      .max(2048)
      .optional()
      .describe(
        'GitOps: web address (http or https) of the pull (merge) request the template opened for the service; its ' +
          'reservation then follows it (kept once merged, released when it is closed unmerged or not merged in ' +
          'time). Empty when no request was opened. Checked when the step confirms, not before: in a dry run the ' +
          "publish step does not run and the scaffolder renders its output as a placeholder ('<example>')",
      ),
};

/**
 * `gpu:service:confirm`: the last step of a template that created its GPU service provisionally. Until it runs,
 * the backend deletes the service and releases its quota when the confirmation time passes, so a run that failed in
 * between (a catalog or publish step) leaves nothing reserved. Confirming twice is harmless; a service that was
 * already deleted for want of confirmation fails the step with the reason.
 *
 * @public
 */
export function createServiceConfirmAction(options: {
  discovery: DiscoveryService;
  auth: AuthService;
}) {
  const client = new GpuBackendClient(options);
  return createTemplateAction({
    id: ID,
    description:
      'Confirms a GPU service created with provisional: true, as the last step of a template, so that it is kept; ' +
      'unconfirmed, it is deleted and its quota released when its confirmation time passes',
    examples,
    supportsDryRun: true,
    schema: {
      input: inputFields,
      output: {
        serviceId: z => z.string().describe('Id of the confirmed service'),
        status: z => z.string().describe('Its status after the confirmation'),
      },
    },
    async handler(ctx) {
      const input = parseActionInput(ID, inputFields, ctx.input);
      if (ctx.isDryRun || input.serviceId === PREVIEW_ID) {
        ctx.logger.info(
          `Dry run: would confirm GPU service ${input.serviceId}`,
        );
        ctx.output('serviceId', input.serviceId);
        ctx.output('status', 'approved');
        return;
      }
      const pullRequestUrl = pullRequestAddress(input.pullRequestUrl);
      const credentials = await ctx.getInitiatorCredentials();
      try {
        const service = await client.confirmService(
          input.serviceId,
          { credentials },
          pullRequestUrl ? { pullRequestUrl } : undefined,
        );
        ctx.logger.info(
          `Confirmed GPU service ${service.name} (${service.id}): ${service.status}`,
        );
        ctx.output('serviceId', service.id);
        ctx.output('status', service.status);
      } catch (error) {
        if (error instanceof NotFoundError) {
          throw new InputError(
            `Invalid input to ${ID}: serviceId: no GPU service with id ${input.serviceId}`,
          );
        }
        if (error instanceof ConflictError) {
          throw new ConflictError(
            `GPU service ${input.serviceId} was not kept; run the template again to request it anew`,
            error,
          );
        }
        throw error;
      }
    },
  });
}

/** The pull request's web address, undefined when none was given (empty); an InputError when it is no http(s) address. */
function pullRequestAddress(value: string | undefined): string | undefined {
  if (!value) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw new InputError(
      `pullRequestUrl must be the web address (http or https) of the pull or merge request, not '${value}'`,
    );
  }
  return value;
}
