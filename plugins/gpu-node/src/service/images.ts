import { Runtime } from '@gpu-platform/backstage-plugin-gpu-common';
import { DEFAULT_IMAGES } from './defaults';
import { ServiceRenderOptions } from './types';

/**
 * The image of a runtime: the configured pinned reference (else {@link DEFAULT_IMAGES}), behind the registry mirror
 * prefix when one is configured.
 */
export function runtimeImage(
  options: Pick<ServiceRenderOptions, 'images'>,
  runtime: Runtime,
): string {
  const reference = options.images?.[runtime] ?? DEFAULT_IMAGES[runtime];
  const registry = options.images?.registry;
  return registry ? `${registry}/${reference}` : reference;
}
