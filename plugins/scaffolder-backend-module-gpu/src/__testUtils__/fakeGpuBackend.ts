import {
  demoPlatformConfig,
  parsePlatform,
  quoteService,
  validateServiceRequest,
} from '@internal/backstage-plugin-gpu-common';
import { http, HttpResponse } from 'msw';

/** Where `mockServices.discovery()` places the gpu backend. */
export const GPU_BASE_URL = 'http://localhost:0/api/gpu';

/**
 * msw handlers answering like the gpu backend's routes, computed with the real domain code on the demo platform,
 * recording each request for assertions.
 */
export function fakeGpuBackend() {
  const platform = parsePlatform(demoPlatformConfig);
  const requests: { method: string; path: string; body: unknown; authorization: string | null }[] = [];

  const handlers = [
    http.post(`${GPU_BASE_URL}/quote`, async ({ request }) => {
      const body = await request.json();
      requests.push({
        method: 'POST',
        path: '/quote',
        body,
        authorization: request.headers.get('authorization'),
      });
      try {
        const serviceRequest = validateServiceRequest(platform, body);
        return HttpResponse.json(
          quoteService(platform, serviceRequest, {
            reservedGpuEquivalents: {},
            committedMonthlyCost: 0,
          }),
        );
      } catch (error) {
        return HttpResponse.json(
          { error: { name: 'InputError', message: (error as Error).message } },
          { status: 400 },
        );
      }
    }),
  ];
  return { handlers, requests, platform };
}
