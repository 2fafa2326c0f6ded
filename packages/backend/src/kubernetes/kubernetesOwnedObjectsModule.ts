import {
  AuthService,
  coreServices,
  createBackendModule,
  HttpAuthService,
  UserInfoService,
} from '@backstage/backend-plugin-api';
import {
  CompoundEntityRef,
  Entity,
  parseEntityRef,
  stringifyEntityRef,
} from '@backstage/catalog-model';
import { InputError } from '@backstage/errors';
import { permissionRules } from '@backstage/plugin-catalog-backend/alpha';
import {
  CatalogService,
  catalogServiceRef,
} from '@backstage/plugin-catalog-node';
import {
  KubernetesObjectsProvider,
  kubernetesRouterExtensionPoint,
} from '@backstage/plugin-kubernetes-node';
import express, { NextFunction, Request, Response } from 'express';

/** Where the Kubernetes plugin's entity routes name their entity: a ref, or (the services route) the entity. */
function entityRefOf(req: Request): CompoundEntityRef | undefined {
  const body = req.body ?? {};
  try {
    if (typeof body.entityRef === 'string') {
      return parseEntityRef(body.entityRef);
    }
    if (body.entity && typeof body.entity === 'object') {
      return parseEntityRef(stringifyEntityRef(body.entity));
    }
  } catch {
    // Not a ref: the default route answers with its own error.
  }
  return undefined;
}

/**
 * The entity the signed-in caller owns (the catalog's IS_ENTITY_OWNER rule on the caller's ownership claims), read
 * with the caller's credentials; undefined for callers who do not own it or are not users.
 */
async function ownedEntity(
  req: Request,
  deps: {
    auth: AuthService;
    httpAuth: HttpAuthService;
    userInfo: UserInfoService;
    catalog: CatalogService;
  },
): Promise<Entity | undefined> {
  const ref = entityRefOf(req);
  if (!ref) return undefined;
  const credentials = await deps.httpAuth.credentials(req);
  if (!deps.auth.isPrincipal(credentials, 'user')) return undefined;
  const entity = await deps.catalog.getEntityByRef(ref, { credentials });
  if (!entity) return undefined;
  const { ownershipEntityRefs } = await deps.userInfo.getUserInfo(credentials);
  return permissionRules.isEntityOwner.apply(entity, {
    claims: ownershipEntityRefs,
  })
    ? entity
    : undefined;
}

/**
 * Lets the owners of an entity read its Kubernetes objects. The Kubernetes plugin's `kubernetes.resources.read` is
 * plugin-wide (it names no entity), so `GpuPlatformPolicy` grants it to the platform groups only; this module answers
 * the plugin's entity routes (`POST /services/:serviceId`, `/resources/workloads/query`, `/resources/custom/query`)
 * itself when the caller owns the entity, and leaves every other request, the proxy included, to the plugin's own
 * routes and their permission checks.
 */
export const kubernetesOwnedObjectsModule = createBackendModule({
  pluginId: 'kubernetes',
  moduleId: 'owned-objects',
  register(env) {
    env.registerInit({
      deps: {
        routes: kubernetesRouterExtensionPoint,
        auth: coreServices.auth,
        httpAuth: coreServices.httpAuth,
        userInfo: coreServices.userInfo,
        catalog: catalogServiceRef,
      },
      async init({ routes, ...deps }) {
        routes.addRouter(({ getDefault, objectsProvider }) => {
          const router = express.Router();
          const owned = (
            read: (
              provider: KubernetesObjectsProvider,
              entity: Entity,
              req: Request,
            ) => Promise<unknown>,
          ) => [
            express.json(),
            async (req: Request, res: Response, next: NextFunction) => {
              try {
                const entity = await ownedEntity(req, deps);
                if (!entity) {
                  next();
                  return;
                }
                res.json(await read(objectsProvider, entity, req));
              } catch (error) {
                next(error);
              }
            },
          ];
          const credentialsOf = async (req: Request) => ({
            credentials: await deps.httpAuth.credentials(req),
          });
          router.post(
            ['/services/:serviceId', '/resources/workloads/query'],
            ...owned(async (provider, entity, req) =>
              provider.getKubernetesObjectsByEntity(
                { entity, auth: req.body.auth ?? {} },
                await credentialsOf(req),
              ),
            ),
          );
          router.post(
            '/resources/custom/query',
            ...owned(async (provider, entity, req) => {
              const { customResources } = req.body;
              if (!Array.isArray(customResources) || !customResources.length) {
                throw new InputError(
                  'customResources must be an array of at least 1 custom resource',
                );
              }
              return provider.getCustomResourcesByEntity(
                { entity, customResources, auth: req.body.auth ?? {} },
                await credentialsOf(req),
              );
            }),
          );
          router.use(getDefault());
          return router;
        });
      },
    });
  },
});
