import fs from 'node:fs';
import { eventually, LocalClusterClients } from './localCluster';

/**
 * The forge and GitOps controller `scripts/gitops up` started (what `scripts/gitops env` prints): a Gitea server with
 * an admin token, and Flux's controllers syncing into the local control plane.
 *
 * @public
 */
export interface LocalForge {
  url: string;
  user: string;
  token: string;
  /** Where Flux's objects live. */
  fluxNamespace: string;
}

/**
 * The local forge from the environment; an error naming what to do when it is not there (a suite that needs it
 * fails, never skips).
 *
 * @public
 */
export function localForge(): LocalForge {
  const url = process.env.GPU_GITEA_URL;
  const user = process.env.GPU_GITEA_USER;
  const tokenFile = process.env.GPU_GITEA_TOKEN_FILE;
  if (!url || !user || !tokenFile || !fs.existsSync(tokenFile)) {
    throw new Error(
      'No local forge: GPU_GITEA_URL, GPU_GITEA_USER and GPU_GITEA_TOKEN_FILE are not all set. Start Gitea and Flux ' +
        'with scripts/gitops up (after scripts/cluster up) and export what scripts/gitops env prints.',
    );
  }
  return {
    url,
    user,
    token: fs.readFileSync(tokenFile, 'utf8').trim(),
    fluxNamespace: process.env.GPU_FLUX_NAMESPACE ?? 'flux-system',
  };
}

/**
 * A call of Gitea's REST API (`/api/v1`) with the forge's token: the status and the parsed body.
 *
 * @public
 */
export type GiteaCall = <T = any>(
  method: string,
  route: string,
  body?: unknown,
) => Promise<{ status: number; body: T }>;

/** @public */
export function giteaApi(forge: LocalForge): GiteaCall {
  return async (method, route, body) => {
    const res = await fetch(`${forge.url}/api/v1${route}`, {
      method,
      headers: {
        authorization: `token ${forge.token}`,
        'content-type': 'application/json',
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
}

/**
 * Where Flux's objects of one kind are, for the custom objects client.
 *
 * @public
 */
export interface FluxObjects {
  group: string;
  version: string;
  plural: string;
  namespace: string;
}

/**
 * Flux's GitRepositories and Kustomizations in the forge's Flux namespace, for the custom objects client.
 *
 * @public
 */
export function fluxObjects(forge: LocalForge): {
  gitRepositories: FluxObjects;
  kustomizations: FluxObjects;
} {
  const flux = (plural: string, group: string): FluxObjects => ({
    group,
    version: 'v1',
    plural,
    namespace: forge.fluxNamespace,
  });
  return {
    gitRepositories: flux('gitrepositories', 'source.toolkit.fluxcd.io'),
    kustomizations: flux('kustomizations', 'kustomize.toolkit.fluxcd.io'),
  };
}

/**
 * Creates a private repository on the local forge with `deploy/README.md` (the services' directory exists before any
 * service does, and after the last one goes: Flux fails on a missing path, and would then prune nothing), and a
 * GitRepository of the same name that reads it with the forge's token, as a platform team would give Flux a deploy
 * token. The suite adds its own Kustomizations.
 *
 * @public
 */
export async function createFluxSyncedRepository(options: {
  forge: LocalForge;
  clients: LocalClusterClients;
  name: string;
  /** The text of `deploy/README.md`. */
  readme: string;
}): Promise<void> {
  const { forge, clients, name } = options;
  const gitea = giteaApi(forge);
  const created = await gitea('POST', '/user/repos', {
    name,
    auto_init: true,
    default_branch: 'main',
    private: true,
  });
  if (created.status !== 201) {
    throw new Error(`Gitea did not create ${name}: ${created.status}`);
  }
  const readme = await gitea(
    'POST',
    `/repos/${forge.user}/${name}/contents/deploy/README.md`,
    {
      message: 'GPU model services',
      content: Buffer.from(options.readme).toString('base64'),
    },
  );
  if (readme.status !== 201) {
    throw new Error(`Gitea did not add deploy/README.md: ${readme.status}`);
  }
  await clients.core.createNamespacedSecret({
    namespace: forge.fluxNamespace,
    body: {
      metadata: { name },
      stringData: { username: forge.user, password: forge.token },
    },
  });
  await clients.custom.createNamespacedCustomObject({
    ...fluxObjects(forge).gitRepositories,
    body: {
      apiVersion: 'source.toolkit.fluxcd.io/v1',
      kind: 'GitRepository',
      metadata: { name },
      spec: {
        url: `${forge.url}/${forge.user}/${name}.git`,
        ref: { branch: 'main' },
        interval: '2s',
        secretRef: { name },
      },
    },
  });
}

/**
 * Merges a pull request as a reviewer would, once Gitea has checked that it can (it answers 405 until then).
 *
 * @public
 */
export async function mergePullRequest(
  forge: LocalForge,
  repository: string,
  pullNumber: number,
): Promise<void> {
  const gitea = giteaApi(forge);
  await eventually(`pull request #${pullNumber} merged`, async () => {
    const merged = await gitea(
      'POST',
      `/repos/${forge.user}/${repository}/pulls/${pullNumber}/merge`,
      { Do: 'merge', delete_branch_after_merge: true },
    );
    return merged.status === 200 ? true : undefined;
  });
}

/**
 * Deletes the named Kustomizations (pruning what they applied), the repository's GitRepository and secret, and the
 * repository.
 *
 * @public
 */
export async function removeFluxSyncedRepository(options: {
  forge: LocalForge;
  clients: LocalClusterClients;
  name: string;
  kustomizations: string[];
}): Promise<void> {
  const { forge, clients, name } = options;
  const { gitRepositories, kustomizations } = fluxObjects(forge);
  for (const kustomization of options.kustomizations) {
    await clients.custom
      .deleteNamespacedCustomObject({ ...kustomizations, name: kustomization })
      .catch(() => undefined);
  }
  await clients.custom
    .deleteNamespacedCustomObject({ ...gitRepositories, name })
    .catch(() => undefined);
  await clients.core
    .deleteNamespacedSecret({ namespace: forge.fluxNamespace, name })
    .catch(() => undefined);
  await giteaApi(forge)('DELETE', `/repos/${forge.user}/${name}`);
}
