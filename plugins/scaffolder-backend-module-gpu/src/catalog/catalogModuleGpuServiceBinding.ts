import {
  coreServices,
  createBackendModule,
} from '@backstage/backend-plugin-api';
import { catalogProcessingExtensionPoint } from '@backstage/plugin-catalog-node';
import { GpuBackendClient } from '@gpu-platform/backstage-plugin-gpu-node';
import { GpuServiceBindingProcessor } from './GpuServiceBindingProcessor';

/** Statuses of a service that no longer stands behind its component. */
const GONE = new Set(['deleted', 'rejected']);

/**
 * Adds {@link GpuServiceBindingProcessor} to the catalog: a Component a GPU service is bound to gets the service's
 * id annotation, asked of the gpu backend (`GET /services?entityRef=`, the newest service that is not deleted or
 * rejected) with the catalog's own service credentials.
 *
 * @public
 */
export const catalogModuleGpuServiceBinding = createBackendModule({
  pluginId: 'catalog',
  moduleId: 'gpu-service-binding',
  register({ registerInit }) {
    registerInit({
      deps: {
        processing: catalogProcessingExtensionPoint,
        discovery: coreServices.discovery,
        auth: coreServices.auth,
      },
      async init({ processing, discovery, auth }) {
        const client = new GpuBackendClient({ discovery, auth });
        processing.addProcessor(
          new GpuServiceBindingProcessor({
            lookup: async entityRef => {
              const { items } = await client.listServices(
                { entityRef },
                { credentials: await auth.getOwnServiceCredentials() },
              );
              return items.find(service => !GONE.has(service.status))?.id;
            },
          }),
        );
      },
    });
  },
});
