/**
 * Reading a stored service and writing its status conditionally (compare-and-set): the two store steps the
 * lifecycle (`ServiceManager`), the status refresh and the resume of interrupted applies share.
 */
import { ConflictError, NotFoundError } from '@backstage/errors';
import { GpuStore, ServiceRecord, UpdateServiceStatusInput } from '../database';

/** The stored service; a NotFoundError when there is none. */
export async function getService(
  store: GpuStore,
  id: string,
): Promise<ServiceRecord> {
  const service = await store.getService(id);
  if (!service) {
    throw new NotFoundError(`No GPU service with id ${id}`);
  }
  return service;
}

/**
 * A status write of the lifecycle: always conditional on the status and the version (`updatedAt`) it was computed
 * from, never blind, so that no write of one path (change, apply, teardown, retry, refresh, resume) overwrites
 * another's.
 */
export type ConditionalStatusWrite = UpdateServiceStatusInput &
  Required<
    Pick<UpdateServiceStatusInput, 'expectedStatus' | 'expectedUpdatedAt'>
  >;

/** A conditional status write; on a lost compare-and-set, the current service instead. */
export async function compareAndSet(
  store: GpuStore,
  input: ConditionalStatusWrite,
): Promise<{ written: boolean; service: ServiceRecord }> {
  try {
    return {
      written: true,
      service: await store.updateServiceStatus(input),
    };
  } catch (error) {
    if (error instanceof ConflictError) {
      return { written: false, service: await getService(store, input.id) };
    }
    throw error;
  }
}
