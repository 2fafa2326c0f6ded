import type { KubernetesObject } from '@kubernetes/client-node';
import { KubernetesObjectClient, ListOptions } from '../cluster';

/** Pages of one list at most; a cluster with more objects of a kind is checked on the first ones. */
const MAX_PAGES = 40;

/** Every object of a kind in every namespace (or of a cluster-scoped kind), page by page. */
export async function listEvery(
  client: KubernetesObjectClient,
  options: Pick<ListOptions, 'apiVersion' | 'kind'>,
  pageSize: number,
): Promise<KubernetesObject[]> {
  const items: KubernetesObject[] = [];
  let continueToken: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await client.list({
      ...options,
      limit: pageSize,
      continueToken,
    });
    items.push(...result.items);
    continueToken = result.continueToken;
    if (!continueToken) break;
  }
  return items;
}
