import { AuditorService, HttpAuthService } from '@backstage/backend-plugin-api';
import {
  parseServiceEntityRef,
  ServiceRequest,
} from '@internal/backstage-plugin-gpu-common';
import express from 'express';
import Router from 'express-promise-router';
import { z } from 'zod';
import { SERVICE_STATUSES, ServiceStatus } from '../database';
import { AuthorizedServices } from '../authorization/AuthorizedServices';
import { audited } from './audited';
import { pageQuery, parse, serviceId, teamName } from './parse';

const createBody = z
  .object({
    request: z.record(z.string(), z.unknown()),
    entityRef: z.string().min(1).optional(),
    requestKey: z.string().min(1).max(200).optional(),
    mode: z.literal('gitops').optional(),
    dryRun: z.boolean().optional(),
  })
  .strict();
const updateBody = z
  .object({
    tier: z.enum(['dedicated', 'mig', 'mps', 'time-sliced']).optional(),
    pool: z.string().min(1).optional(),
    replicas: z.number().int().min(1).max(64).optional(),
    model: z.string().min(1).optional(),
  })
  .strict()
  .refine(
    b => Object.keys(b).length > 0,
    'Nothing to change: give tier, pool, replicas or model',
  );
const listQuery = z
  .object({
    team: teamName.optional(),
    entityRef: z.string().min(1).max(300).optional(),
    status: z
      .enum(SERVICE_STATUSES as [ServiceStatus, ...ServiceStatus[]])
      .optional(),
    environment: z.string().min(1).max(63).optional(),
    search: z.string().min(1).max(100).optional(),
    ...pageQuery,
  })
  .strict();

/** `/services`: request, list, read, change, retry and delete GPU services. */
export function createServicesRoutes(options: {
  httpAuth: HttpAuthService;
  auditor: AuditorService;
  services: AuthorizedServices;
}): express.Router {
  const { httpAuth, auditor, services } = options;
  const router = Router();
  const credentialsOf = (req: express.Request) =>
    httpAuth.credentials(req, { allow: ['user', 'service'] });
  const idOf = (req: express.Request) =>
    parse(serviceId, req.params.id, 'service id');

  router.post('/services', async (req, res) => {
    const credentials = await credentialsOf(req);
    const body = parse(createBody, req.body, 'service request');
    const entityRef =
      body.entityRef === undefined
        ? undefined
        : parseServiceEntityRef(body.entityRef).ref;
    const request = {
      ...body,
      request: body.request as unknown as ServiceRequest,
      entityRef,
    };
    if (body.dryRun) {
      const result = await services.create(credentials, request);
      res.json('preview' in result ? result.preview : result.service);
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
    res.status(result.created ? 201 : 200).json(result.service);
  });

  router.get('/services', async (req, res) => {
    const credentials = await credentialsOf(req);
    res.json(
      await services.list(credentials, parse(listQuery, req.query, 'query')),
    );
  });

  router.get('/services/:id', async (req, res) => {
    const credentials = await credentialsOf(req);
    res.json(await services.get(credentials, idOf(req)));
  });

  router.patch('/services/:id', async (req, res) => {
    const credentials = await credentialsOf(req);
    const id = idOf(req);
    const change = parse(updateBody, req.body, 'change');
    res.json(
      await audited(
        auditor,
        req,
        'service-mutate',
        { actionType: 'update', serviceId: id },
        () => services.update(credentials, id, change),
      ),
    );
  });

  router.post('/services/:id/retry', async (req, res) => {
    const credentials = await credentialsOf(req);
    const id = idOf(req);
    res.json(
      await audited(
        auditor,
        req,
        'service-mutate',
        { actionType: 'retry', serviceId: id },
        () => services.retry(credentials, id),
      ),
    );
  });

  router.delete('/services/:id', async (req, res) => {
    const credentials = await credentialsOf(req);
    const id = idOf(req);
    res.json(
      await audited(
        auditor,
        req,
        'service-mutate',
        { actionType: 'delete', serviceId: id },
        () => services.delete(credentials, id),
      ),
    );
  });

  return router;
}
