import { registerMswTestHooks } from '@backstage/frontend-test-utils';
import { ResponseError } from '@backstage/errors';
import { compactQuote } from '@gpu-platform/backstage-plugin-gpu-common';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { demoQuote } from '../components/TierPicker/__testUtils__/demoQuotes';
import { GpuClient } from './GpuClient';

const baseUrl = 'http://backend.test/api/gpu';
const server = setupServer();

describe('GpuClient.quote', () => {
  registerMswTestHooks(server);

  const client = new GpuClient({
    discoveryApi: { getBaseUrl: async () => baseUrl },
    fetchApi: { fetch: (input, init) => fetch(input, init) },
  });
  const request = {
    name: 'summariser',
    team: 'ml-platform',
    model: 'llama-3.1-8b',
    runtime: 'vllm' as const,
    maxModelLen: 8192,
    concurrency: 16,
    replicas: 1,
    environment: 'dev',
  };

  it('posts the request as JSON and returns the quote', async () => {
    let received: unknown;
    server.use(
      http.post(`${baseUrl}/quote`, async ({ request: req }) => {
        received = await req.json();
        return HttpResponse.json({
          service: 'summariser',
          team: 'ml-platform',
          environment: 'dev',
          options: [],
          unavailable: [],
        });
      }),
    );
    const quote = await client.quote(request);
    expect(received).toEqual(request);
    expect(quote.service).toBe('summariser');
  });

  it('asks for the summary with detail=summary, and posts the same request', async () => {
    const seen: { detail: string | null; body: unknown }[] = [];
    server.use(
      http.post(`${baseUrl}/quote`, async ({ request: req }) => {
        const detail = new URL(req.url).searchParams.get('detail');
        const body = (await req.json()) as typeof request;
        seen.push({ detail, body });
        // The backend's two answers: the whole quote, or compactQuote of it.
        const quote = demoQuote(body);
        return HttpResponse.json(
          detail === 'summary' ? compactQuote(quote) : quote,
        );
      }),
    );
    const summary = await client.quoteSummary(request);
    const full = await client.quote(request);
    expect(seen).toEqual([
      { detail: 'summary', body: request },
      { detail: null, body: request },
    ]);
    expect(summary).toEqual(compactQuote(full));
    expect(summary.detail).toBe('summary');
    expect(JSON.stringify(summary).length).toBeLessThan(
      JSON.stringify(full).length / 3,
    );
  });

  it('rejects with the backend error', async () => {
    server.use(
      http.post(`${baseUrl}/quote`, () =>
        HttpResponse.json(
          {
            error: {
              name: 'InputError',
              message: 'maxModelLen 200000 exceeds the context of llama-3.1-8b',
            },
            response: { statusCode: 400 },
          },
          { status: 400 },
        ),
      ),
    );
    const error = await client.quote(request).catch(e => e);
    expect(error).toBeInstanceOf(ResponseError);
    expect(error.statusCode).toBe(400);
    expect(error.cause.message).toBe(
      'maxModelLen 200000 exceeds the context of llama-3.1-8b',
    );
  });

  it('aborts when the signal fires', async () => {
    server.use(
      http.post(`${baseUrl}/quote`, async () => {
        await new Promise(resolve => setTimeout(resolve, 1000));
        return HttpResponse.json({});
      }),
    );
    const controller = new AbortController();
    const pending = client.quote(request, { signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toThrow(/abort/i);
  });
});

describe('GpuClient.updateService and deleteService', () => {
  registerMswTestHooks(server);

  const client = new GpuClient({
    discoveryApi: { getBaseUrl: async () => baseUrl },
    fetchApi: { fetch: (input, init) => fetch(input, init) },
  });

  it('sends PATCH /services/:id with the change as JSON', async () => {
    let received: { method: string; body: unknown } | undefined;
    server.use(
      http.patch(`${baseUrl}/services/svc%201`, async ({ request }) => {
        received = { method: request.method, body: await request.json() };
        return HttpResponse.json({ id: 'svc 1', status: 'pending-approval' });
      }),
    );
    const answer = await client.updateService('svc 1', {
      tier: 'mig',
      pool: 'a100-mig',
    });
    expect(received).toEqual({
      method: 'PATCH',
      body: { tier: 'mig', pool: 'a100-mig' },
    });
    expect(answer).toMatchObject({ status: 'pending-approval' });
  });

  it('sends DELETE /services/:id without a body and rejects with the backend error', async () => {
    let body: string | undefined;
    server.use(
      http.delete(`${baseUrl}/services/svc-1`, async ({ request }) => {
        body = await request.text();
        return HttpResponse.json(
          {
            error: {
              name: 'NotAllowedError',
              message: 'not a member of the team',
            },
            request: { method: 'DELETE', url: '/services/svc-1' },
            response: { statusCode: 403 },
          },
          { status: 403 },
        );
      }),
    );
    const error = await client.deleteService('svc-1').catch(e => e);
    expect(body).toBe('');
    expect(error).toBeInstanceOf(ResponseError);
    expect(error.response.status).toBe(403);
    expect(error.body.error.message).toBe('not a member of the team');
  });
});

describe('GpuClient.listTeamQuotas and listApprovals', () => {
  registerMswTestHooks(server);

  const client = new GpuClient({
    discoveryApi: { getBaseUrl: async () => baseUrl },
    fetchApi: { fetch: (input, init) => fetch(input, init) },
  });

  it('reads every team quota in one GET /quotas, as the route answers (QuotaRecord items, pools by name)', async () => {
    const requests: string[] = [];
    const record = {
      team: 'ml-platform',
      pools: { 'a100-mig': 4, 'l4-ondemand': 4 },
      monthlyBudgetMicros: 4_000_000_000,
      reservedGpuEquivalents: { 'l4-ondemand': 3 },
      reservedMonthlyCostMicros: 1_762_500_000,
      updatedBy: 'gpu-backend',
      updatedAt: '2026-12-01T00:00:00.000Z',
    };
    server.use(
      http.get(`${baseUrl}/quotas`, ({ request }) => {
        requests.push(request.url);
        return HttpResponse.json({ items: [record] });
      }),
    );
    expect(await client.listTeamQuotas()).toEqual([record]);
    expect(requests).toEqual([`${baseUrl}/quotas`]);
  });

  it('sends the sort of the approvals as orderBy and order, with the cursor', async () => {
    let url: URL | undefined;
    server.use(
      http.get(`${baseUrl}/approvals`, ({ request }) => {
        url = new URL(request.url);
        return HttpResponse.json({ items: [], totalCount: 0 });
      }),
    );
    await client.listApprovals({
      state: 'pending',
      orderBy: 'monthlyCost',
      order: 'desc',
      limit: 10,
      cursor: 'abc',
    });
    expect(Object.fromEntries(url!.searchParams)).toEqual({
      state: 'pending',
      orderBy: 'monthlyCost',
      order: 'desc',
      limit: '10',
      cursor: 'abc',
    });
  });
});
