import type { GpuServiceView } from '@gpu-platform/backstage-plugin-gpu-common';
import type request from 'supertest';

/** Statuses the reconciler moves a service out of by itself. */
const IN_FLIGHT = ['applying', 'deleting'];

/**
 * The service once the reconciler has acted on what a write recorded: polls the list of services (which, unlike
 * `GET /services/:id`, reads nothing from the cluster and so changes no status) until the service is no longer
 * `applying` or `deleting` (a create, change, retry or delete answers at once with those; the work queue applies or
 * tears down after). Fails after `timeoutMs`.
 */
export async function settledService(
  http: ReturnType<typeof request>,
  id: string,
  timeoutMs = 30_000,
): Promise<GpuServiceView> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await http.get('/api/gpu/services?limit=200');
    // A list may leave deleted services out: then the service itself.
    const service =
      (res.body.items as GpuServiceView[] | undefined)?.find(
        s => s.id === id,
      ) ?? (await http.get(`/api/gpu/services/${id}`)).body;
    if (!service?.status) {
      throw new Error(`No service ${id}: ${JSON.stringify(res.body)}`);
    }
    if (!IN_FLIGHT.includes(service.status)) {
      return service;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `Service ${id} was still ${service.status} (${service.reason}) after ${timeoutMs} ms`,
      );
    }
    await new Promise(resolve => setTimeout(resolve, 50));
  }
}
