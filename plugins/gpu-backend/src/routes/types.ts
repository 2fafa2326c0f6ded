import { internal, TypedRouter } from '@backstage/backend-openapi-utils';
import { HttpAuthService } from '@backstage/backend-plugin-api';
import express from 'express';
import { EndpointMap } from '../schema/openapi';

/**
 * The router generated from `src/schema/openapi.yaml` (`createOpenApiRouter`): its `get`, `post`, `put` and
 * `delete` take only the spec's paths and give handlers the spec's typed path parameters, query and body, which
 * the validator in front of them has already checked (a 400 naming the field otherwise).
 */
export type GpuRouter = TypedRouter<EndpointMap>;

/**
 * A handler typed by the spec for a method the generated router does not type (`patch`), e.g.
 * `DocHandler<'/services/{id}', 'patch'>`.
 */
export type DocHandler<
  Path extends internal.DocEndpoint<EndpointMap>,
  Method extends internal.DocEndpointMethod<EndpointMap, Path>,
> = internal.EndpointMapRequestHandler<EndpointMap, Path, Method>;

/**
 * A generated model as JSON carries it. The generator types `format: date-time` as `Date`; on the wire (and in
 * the gpu-common API types the services answer with) it is an ISO 8601 string.
 */
export type Json<T> = T extends Date
  ? string
  : T extends ReadonlyArray<infer U>
  ? Json<U>[]
  : T extends object
  ? { [K in keyof T]: Json<T[K]> }
  : T;

/**
 * Answers `body`, checked at compile time against the operation's response schemas (the generated models, dates as
 * strings).
 */
export function send<ResBody>(
  res: express.Response<ResBody>,
  body: Json<ResBody>,
  status: number = 200,
): void {
  res.status(status).json(body as unknown as ResBody);
}

/**
 * The credentials of a caller of the gpu API: a signed-in user, or another backend (acting as itself or on a user's
 * behalf). Unauthenticated callers get 401.
 */
export function callerOf(
  httpAuth: HttpAuthService,
): (
  req: Parameters<HttpAuthService['credentials']>[0],
) => ReturnType<HttpAuthService['credentials']> {
  return req => httpAuth.credentials(req, { allow: ['user', 'service'] });
}
