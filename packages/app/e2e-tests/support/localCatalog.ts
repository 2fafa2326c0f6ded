import { APIRequestContext, expect } from '@playwright/test';
import { createHash } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { api, backstageToken } from './users';

/** The local catalog directory the catalog reads (`scaffolder.gpu.catalogDirectory`, app-config.yaml). */
export const LOCAL_CATALOG = resolve(__dirname, '../../../../local-catalog');

function fileOf(name: string): string {
  return resolve(LOCAL_CATALOG, `component-default-${name}.yaml`);
}

/** What a test may say of its Component beyond its name and service; by default an experimental one of its own. */
export interface GpuComponentOptions {
  description?: string;
  /** `backstage.io/kubernetes-id`: the name of the service's pods' label; the Component's name by default. */
  kubernetesId?: string;
  lifecycle?: string;
  system?: string;
  /** More annotations, e.g. `backstage.io/kubernetes-cluster` from the service's view. */
  annotations?: Record<string, string>;
}

/**
 * Writes a Component of ml-platform bound to a GPU service (its `gpu.backstage.io/service-id` and the Kubernetes
 * annotations the templates write) into the local catalog directory, refreshes the location that reads it and waits
 * until the catalog serves it.
 */
export async function registerGpuComponent(
  request: APIRequestContext,
  name: string,
  serviceId: string,
  options: GpuComponentOptions = {},
) {
  await writeFile(
    fileOf(name),
    [
      'apiVersion: backstage.io/v1alpha1',
      'kind: Component',
      'metadata:',
      `  name: ${name}`,
      `  description: ${
        options.description ?? 'GPU model service (end-to-end test)'
      }`,
      '  annotations:',
      `    gpu.backstage.io/service-id: ${serviceId}`,
      `    backstage.io/kubernetes-id: ${options.kubernetesId ?? name}`,
      '    backstage.io/kubernetes-namespace: ml-serving',
      ...Object.entries(options.annotations ?? {}).map(
        ([key, value]) => `    ${key}: ${value}`,
      ),
      'spec:',
      '  type: service',
      `  lifecycle: ${options.lifecycle ?? 'experimental'}`,
      '  owner: ml-platform',
      ...(options.system ? [`  system: ${options.system}`] : []),
      '',
    ].join('\n'),
  );
  // The Location entity the catalog made of that config location is named like locationSpecToMetadataName does.
  const location = `generated-${createHash('sha1')
    .update(`file:${LOCAL_CATALOG}/*.yaml`)
    .digest('hex')}`;
  await api(request, 'POST', '/api/catalog/refresh', {
    entityRef: `location:default/${location}`,
  });
  await expect
    .poll(
      async () => {
        const res = await request.get(
          `/api/catalog/entities/by-name/component/default/${name}`,
          {
            headers: {
              Authorization: `Bearer ${await backstageToken(request)}`,
            },
          },
        );
        return res.ok()
          ? (await res.json()).metadata.annotations[
              'gpu.backstage.io/service-id'
            ]
          : undefined;
      },
      { timeout: 60_000, intervals: [500, 1000, 2000] },
    )
    .toBe(serviceId);
}

/** Removes the Component's file (the catalog drops it at its next read of the location). */
export async function removeGpuComponent(name: string) {
  await rm(fileOf(name), { force: true });
}
