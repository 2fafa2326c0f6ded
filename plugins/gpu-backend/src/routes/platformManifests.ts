import { HttpAuthService } from '@backstage/backend-plugin-api';
import { AuthorizedPlatformManifests } from '../authorization/AuthorizedPlatformManifests';
import { GpuRouter, send, callerOf } from './types';

/** `/platform/manifests`: a GitOps cluster's platform objects as files for its repository. */
export function registerPlatformManifestsRoutes(
  router: GpuRouter,
  options: {
    httpAuth: HttpAuthService;
    platformManifests: AuthorizedPlatformManifests;
  },
): void {
  const { httpAuth, platformManifests } = options;
  const credentialsOf = callerOf(httpAuth);

  router.get('/platform/manifests', async (req, res) => {
    const credentials = await credentialsOf(req);
    send(res, await platformManifests.render(credentials, req.query.cluster));
  });
}
