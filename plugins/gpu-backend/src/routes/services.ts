import {
  AuditorService,
  BackstageCredentials,
  HttpAuthService,
} from '@backstage/backend-plugin-api';
import {
  ConfirmServiceBody,
  GpuServiceView,
  UpdateServiceBody,
} from '@gpu-platform/backstage-plugin-gpu-common';
import express from 'express';
import { AuthorizedServices } from '../authorization/AuthorizedServices';
import { parseCreateServiceBody } from '../services/parseCreateServiceBody';
import { audited } from './audited';
import { DocHandler, GpuRouter, send, callerOf } from './types';

/** `/services`: request, list, read, change, retry, confirm and delete GPU services. */
export function registerServicesRoutes(
  router: GpuRouter,
  options: {
    httpAuth: HttpAuthService;
    auditor: AuditorService;
    services: AuthorizedServices;
  },
): void {
  const { httpAuth, auditor, services } = options;
  const credentialsOf = callerOf(httpAuth);

  router.post('/services', async (req, res) => {
    const credentials = await credentialsOf(req);
    // The spec checked the body's shape; the entity ref's grammar and the request's domain rules (known team,
    // model, pool, tier policy) are checked by parseCreateServiceBody and the service manager.
    const request = parseCreateServiceBody(req.body);
    if (request.dryRun) {
      const result = await services.create(credentials, request);
      send(res, 'preview' in result ? result.preview : result.service);
      return;
    }
    const result = await audited(
      auditor,
      req,
      'service-mutate',
      { actionType: 'create' },
      () => services.create(credentials, request),
    );
    if ('preview' in result) throw new Error('unreachable: not a dry run');
    send(res, result.service, result.created ? 201 : 200);
  });

  router.get('/services', async (req, res) => {
    const credentials = await credentialsOf(req);
    send(res, await services.list(credentials, req.query));
  });

  router.get('/services/:id', async (req, res) => {
    const credentials = await credentialsOf(req);
    send(res, await services.get(credentials, req.params.id));
  });

  /** Changes one service for the caller, as one `service-mutate` event of the auditor with its kind of change. */
  async function changeService(
    req: express.Request<{ id: string }, any, any, any>,
    actionType: string,
    change: (
      credentials: BackstageCredentials,
      id: string,
    ) => Promise<GpuServiceView>,
  ): Promise<GpuServiceView> {
    const credentials = await credentialsOf(req);
    const { id } = req.params;
    return audited(
      auditor,
      req,
      'service-mutate',
      { actionType, serviceId: id },
      () => change(credentials, id),
    );
  }

  // The generated router types get, post, put and delete; PATCH takes its types from the spec here.
  const update: DocHandler<'/services/{id}', 'patch'> = async (req, res) => {
    const body: UpdateServiceBody = req.body;
    if (body.dryRun) {
      // Writes nothing: not a mutation for the auditor.
      const credentials = await credentialsOf(req);
      send(res, await services.update(credentials, req.params.id, body));
      return;
    }
    send(
      res,
      await changeService(req, 'update', (credentials, id) =>
        services.update(credentials, id, body),
      ),
    );
  };
  router.patch('/services/:id', update);

  router.post('/services/:id/retry', async (req, res) => {
    send(
      res,
      await changeService(req, 'retry', (credentials, id) =>
        services.retry(credentials, id),
      ),
    );
  });

  router.post('/services/:id/confirm', async (req, res) => {
    send(
      res,
      await changeService(req, 'confirm', (credentials, id) =>
        // The spec checked the body's shape; the address's forge is checked by the service manager.
        services.confirm(
          credentials,
          id,
          (req.body as ConfirmServiceBody | undefined)?.pullRequestUrl,
        ),
      ),
    );
  });

  router.delete('/services/:id', async (req, res) => {
    send(
      res,
      await changeService(req, 'delete', (credentials, id) =>
        services.delete(credentials, id),
      ),
    );
  });
}
