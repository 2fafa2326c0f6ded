import { ResponseError } from '@backstage/errors';

/** The error `GpuClient` throws for a backend answer with `status` and Backstage's JSON error body. */
export function responseError(
  status: number,
  statusText: string,
  name: string,
  message: string,
): Promise<ResponseError> {
  const body = JSON.stringify({
    error: { name, message },
    response: { statusCode: status },
  });
  return ResponseError.fromResponse({
    ok: false,
    status,
    statusText,
    url: 'http://localhost:7007/api/gpu',
    headers: {
      get: (h: string) =>
        h.toLowerCase() === 'content-type' ? 'application/json' : null,
    },
    text: async () => body,
  } as any);
}
