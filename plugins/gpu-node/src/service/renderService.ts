import type { V1Service } from '@kubernetes/client-node';
import { RUNTIME_PORTS } from './defaults';
import { ServiceContext } from './resolveServiceContext';
import { serviceAnnotations } from './serviceAnnotations';
import { serviceObjectNames } from './serviceNames';
import { selectorLabels, serviceLabels } from './serviceLabels';

/** The ClusterIP Service in front of the runtime's HTTP port. */
export function renderService(context: ServiceContext): V1Service {
  const port = RUNTIME_PORTS[context.request.runtime];
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: serviceObjectNames(context.request.name).service,
      namespace: context.namespace,
      labels: serviceLabels(context),
      annotations: serviceAnnotations(context),
    },
    spec: {
      type: 'ClusterIP',
      selector: selectorLabels(context),
      ports: [{ name: 'http', port, targetPort: 'http', protocol: 'TCP' }],
    },
  };
}
