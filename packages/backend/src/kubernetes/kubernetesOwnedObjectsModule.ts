import {
  AuthService,
  coreServices,
  createBackendModule,
  HttpAuthService,
  PermissionsService,
  UserInfoService,
} from '@backstage/backend-plugin-api';
import { Config } from '@backstage/config';
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
  DispatchStrategy,
  KubernetesProxy,
} from '@backstage/plugin-kubernetes-backend';
import {
  KubernetesObjectsProvider,
  kubernetesRouterExtensionPoint,
} from '@backstage/plugin-kubernetes-node';
import { AuthorizeResult } from '@backstage/plugin-permission-common';
import {
  readPlatformConfig,
  teamGroupRef,
} from '@gpu-platform/backstage-plugin-gpu-common';
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
 * The namespaces of each team of `gpu.teams` (default: the team's name), by the team's Group ref: what a team's
 * members may read through the proxy. Empty without a gpu config.
 */
export function teamNamespacesOf(config: Config): Map<string, Set<string>> {
  if (!config.has('gpu')) return new Map();
  return new Map(
    readPlatformConfig(config).teams.map(team => [
      teamGroupRef(team.name),
      new Set(team.namespaces),
    ]),
  );
}

/** Subresources that reach into a workload rather than read its object. */
const UNREAD_SUBRESOURCES = new Set(['proxy', 'exec', 'attach', 'portforward']);

/**
 * The namespace a proxied request reads, when it is a read of namespaced objects the owning team may make: GET or
 * HEAD, no upgrade (exec, attach, port-forward and watches over WebSocket stay with the plugin's own check), a path
 * `/api/v1/namespaces/<ns>/...` or `/apis/<group>/<version>/namespaces/<ns>/...`, and not Secrets nor the `proxy`,
 * `exec`, `attach` and `portforward` subresources (which reach into the workload itself). Undefined otherwise
 * (cluster-scoped paths included).
 */
export function namespaceReadOf(req: {
  method: string;
  path: string;
  headers: Record<string, unknown>;
}): string | undefined {
  if (req.method !== 'GET' && req.method !== 'HEAD') return undefined;
  if (req.headers.upgrade) return undefined;
  const match =
    /^\/(?:api\/v1|apis\/[^/]+\/[^/]+)\/namespaces\/([^/]+)(?:\/([^/]+)(?:\/[^/]+(?:\/([^/]+))?)?)?\/?$/.exec(
      req.path,
    );
  if (!match) return undefined;
  const [, namespace, resource, subresource] = match;
  if (resource === 'secrets' || UNREAD_SUBRESOURCES.has(subresource)) {
    return undefined;
  }
  try {
    return decodeURIComponent(namespace);
  } catch {
    return undefined;
  }
}

/**
 * Lets the owners of an entity read its Kubernetes objects. The Kubernetes plugin's `kubernetes.resources.read` is
 * plugin-wide (it names no entity), so `GpuPlatformPolicy` grants it to the platform groups only; this module answers
 * the plugin's entity routes (`POST /services/:serviceId`, `/resources/workloads/query`, `/resources/custom/query`)
 * itself when the caller owns the entity, and passes a team's members' reads of their team's namespaces
 * (`gpu.teams[].namespaces`) through the proxy ({@link namespaceReadOf}); every other request goes to the plugin's
 * own routes and their permission checks.
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
        config: coreServices.rootConfig,
        discovery: coreServices.discovery,
        logger: coreServices.logger,
        auditor: coreServices.auditor,
      },
      async init({ routes, config, discovery, logger, auditor, ...deps }) {
        const teamNamespaces = teamNamespacesOf(config);
        routes.addRouter(
          ({
            getDefault,
            objectsProvider,
            clusterSupplier,
            authStrategyMap,
          }) => {
            const router = express.Router();
            // The team's own namespaces through the proxy: read-only requests the caller's teams own are passed with
            // the plugin's own proxy, its permission already decided here; every other request goes to the plugin's
            // proxy, which asks the policy for kubernetes.proxy (the platform groups only).
            const decided: PermissionsService = {
              authorize: async requests =>
                requests.map(() => ({ result: AuthorizeResult.ALLOW })),
              authorizeConditional: async requests =>
                requests.map(() => ({ result: AuthorizeResult.ALLOW })),
            };
            const ownNamespaceProxy = new KubernetesProxy({
              logger,
              clusterSupplier,
              authStrategy: new DispatchStrategy({ authStrategyMap }),
              discovery,
              httpAuth: deps.httpAuth,
              auditor,
            }).createRequestHandler({ permissionApi: decided });
            router.use(
              '/proxy',
              async (req: Request, res: Response, next: NextFunction) => {
                try {
                  const namespace = namespaceReadOf(req);
                  if (!namespace) {
                    next();
                    return;
                  }
                  const credentials = await deps.httpAuth.credentials(req);
                  if (!deps.auth.isPrincipal(credentials, 'user')) {
                    next();
                    return;
                  }
                  const { ownershipEntityRefs } =
                    await deps.userInfo.getUserInfo(credentials);
                  const owns = ownershipEntityRefs.some(ref =>
                    teamNamespaces
                      .get(ref.toLocaleLowerCase('en-US'))
                      ?.has(namespace),
                  );
                  if (!owns) {
                    next();
                    return;
                  }
                  await ownNamespaceProxy(req, res, next);
                } catch (error) {
                  next(error);
                }
              },
            );
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
                if (
                  !Array.isArray(customResources) ||
                  !customResources.length
                ) {
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
          },
        );
      },
    });
  },
});
