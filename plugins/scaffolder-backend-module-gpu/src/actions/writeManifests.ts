import {
  GpuServiceDetail,
  sortForApply,
  toYaml,
} from '@gpu-platform/backstage-plugin-gpu-node';
import fs from 'node:fs/promises';
import path from 'node:path';
import yaml from 'yaml';

type KubernetesObject = GpuServiceDetail['manifests'][number];

/** How rendered objects are laid out in the target directory. */
export type ManifestLayout = 'files' | 'kustomization' | 'single';

/** `03-deployment-summariser.yaml`: apply position, kind and name, so a plain `kubectl apply -f` keeps the order. */
function fileNameOf(
  object: KubernetesObject,
  index: number,
  width: number,
): string {
  const kind = (object.kind ?? 'object').toLocaleLowerCase('en-US');
  return `${String(index + 1).padStart(width, '0')}-${kind}-${
    object.metadata?.name ?? 'unnamed'
  }.yaml`;
}

/** The paths, relative to its directory, {@link writeManifests} writes `objects` to in `layout`. */
export function manifestFileNames(
  objects: KubernetesObject[],
  layout: ManifestLayout,
): string[] {
  if (layout === 'single') return ['manifests.yaml'];
  const width = String(objects.length).length;
  const files = sortForApply(objects).map((object, index) =>
    fileNameOf(object, index, width),
  );
  return layout === 'kustomization' ? [...files, 'kustomization.yaml'] : files;
}

/**
 * Writes objects in apply order into `directory`: one file per object (`files`), the same plus a
 * `kustomization.yaml` listing them (`kustomization`), or one multi-document `manifests.yaml` (`single`).
 * Returns the written paths relative to `directory`.
 */
export async function writeManifests(
  directory: string,
  objects: KubernetesObject[],
  layout: ManifestLayout,
): Promise<string[]> {
  await fs.mkdir(directory, { recursive: true });
  const sorted = sortForApply(objects);
  if (layout === 'single') {
    await fs.writeFile(
      path.join(directory, 'manifests.yaml'),
      toYaml(sorted),
      'utf8',
    );
    return ['manifests.yaml'];
  }
  const files = manifestFileNames(sorted, 'files');
  await Promise.all(
    sorted.map((object, index) =>
      fs.writeFile(
        path.join(directory, files[index]),
        toYaml([object]),
        'utf8',
      ),
    ),
  );
  if (layout === 'kustomization') {
    await fs.writeFile(
      path.join(directory, 'kustomization.yaml'),
      yaml.stringify({
        apiVersion: 'kustomize.config.k8s.io/v1beta1',
        kind: 'Kustomization',
        resources: files,
      }),
      'utf8',
    );
    return [...files, 'kustomization.yaml'];
  }
  return files;
}
