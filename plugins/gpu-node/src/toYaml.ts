import type { KubernetesObject } from '@kubernetes/client-node';
import { stringify } from 'yaml';

/**
 * Objects as one multi-document YAML stream (documents separated by `---`), for a GitOps repository. The input order
 * is kept, so pass objects through {@link sortForApply} first; the same objects always give the same text.
 *
 * @public
 */
export function toYaml(objects: KubernetesObject[]): string {
  return objects
    .map(object =>
      stringify(object, { lineWidth: 0, aliasDuplicateObjects: false }),
    )
    .map(document => `---\n${document}`)
    .join('');
}
