import {
  coreExtensionData,
  createFrontendModule,
} from '@backstage/frontend-plugin-api';
import kubernetesPlugin from '@backstage/plugin-kubernetes/alpha';
import { KubernetesClusterGate } from './KubernetesClusterGate';

/**
 * The Kubernetes plugin's entity tab as the plugin defines it (path, title, group, and its filter: entities with
 * `backstage.io/kubernetes-id` or a label selector annotation), its content behind {@link KubernetesClusterGate}
 * so that without a cluster it says so instead of failing.
 */
export const kubernetesEntityContent = kubernetesPlugin
  .getExtension('entity-content:kubernetes/kubernetes')
  .override({
    factory(originalFactory) {
      const original = originalFactory();
      const content = original.get(coreExtensionData.reactElement);
      return [
        ...Array.from(original).filter(
          data => data.id !== coreExtensionData.reactElement.id,
        ),
        coreExtensionData.reactElement(
          <KubernetesClusterGate>{content}</KubernetesClusterGate>,
        ),
      ];
    },
  });

export const kubernetesModule = createFrontendModule({
  pluginId: 'kubernetes',
  extensions: [kubernetesEntityContent],
});
