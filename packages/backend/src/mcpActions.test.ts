/*
 * The gpu plugin's actions as MCP tools: boots the real backend (every plugin of src/index.ts, app-config.yaml's
 * backend.actions.pluginSources, the GPU platform policy) as a child process, signs users of examples/org.yaml in as
 * behind oauth2-proxy (bob: ml-platform, carol: search) and as the guest (platform team), and drives
 * /api/mcp-actions/v1 with the MCP SDK's client over Streamable HTTP with each user's Backstage token as Bearer.
 * With GPU_MCP_TRANSCRIPT set, the tools/ exchanges are written to that file as Markdown (mcpTranscript.ts).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { McpTranscript } from './__testUtils__/mcpTranscript';
import {
  BackendProcess,
  freePort,
  startBackendProcess,
} from './__testUtils__/startBackendProcess';

jest.setTimeout(240_000);

const GPU_TOOLS = [
  'gpu.change-gpu-service',
  'gpu.create-gpu-service',
  'gpu.delete-gpu-service',
  'gpu.get-gpu-service-cost',
  'gpu.get-gpu-service-status',
  'gpu.list-gpu-services',
  'gpu.list-gpu-team-quotas',
  'gpu.quote-gpu-service',
];

/** Who each client of the transcript is. */
const CALLERS = {
  bob: 'bob, a member of ml-platform',
  carol: 'carol, a member of search',
  guest: 'the guest, a member of ml-platform and the platform team',
};
type Caller = keyof typeof CALLERS;

/** A small dev service of a team: the report summariser on a dedicated on-demand L4, within quota. */
const summariser = (name: string, team: string) => ({
  name,
  team,
  model: 'llama-3.1-8b',
  runtime: 'vllm',
  dtype: 'bf16',
  maxModelLen: 8192,
  concurrency: 64,
  replicas: 1,
  environment: 'dev',
  tier: 'dedicated',
  pool: 'l4-ondemand',
});

describe('MCP actions', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'gpu-mcp-'));
  const transcript = new McpTranscript();
  let backend: BackendProcess;
  const clients: Client[] = [];

  beforeAll(async () => {
    backend = await startBackendProcess({
      port: await freePort(),
      configFile: path.join(dir, 'config.json'),
      config: {
        auth: {
          providers: {
            oauth2Proxy: {
              signIn: {
                resolvers: [
                  { resolver: 'forwardedUserMatchingUserEntityName' },
                ],
              },
            },
          },
        },
      },
    });
  });

  afterAll(async () => {
    await Promise.all(clients.map(c => c.close()));
    await backend?.stop();
    rmSync(dir, { recursive: true, force: true });
    if (process.env.GPU_MCP_TRANSCRIPT) {
      transcript.write(path.resolve(process.env.GPU_MCP_TRANSCRIPT));
    }
  });

  /** A Backstage token of a catalog user, signed in as oauth2-proxy would (once the catalog has read org.yaml). */
  async function proxiedToken(user: string): Promise<string> {
    for (let i = 0; ; i++) {
      const res = await fetch(
        `${backend.baseUrl}/api/auth/oauth2Proxy/refresh?env=development`,
        {
          headers: {
            'x-requested-with': 'XMLHttpRequest',
            'x-forwarded-user': user,
            'x-forwarded-email': `${user}@example.com`,
          },
        },
      );
      if (res.ok) return (await res.json()).backstageIdentity.token;
      if (i >= 120) throw new Error(`${user} cannot sign in: ${res.status}`);
      await new Promise(r => setTimeout(r, 500));
    }
  }

  async function guestToken(): Promise<string> {
    const res = await fetch(
      `${backend.baseUrl}/api/auth/guest/refresh?env=development`,
      { headers: { 'x-requested-with': 'XMLHttpRequest' } },
    );
    expect(res.status).toBe(200);
    return (await res.json()).backstageIdentity.token;
  }

  /** An MCP client of /api/mcp-actions/v1 with the token as Bearer, its tools/ calls in the transcript as `caller`. */
  async function connect(token: string, caller: Caller): Promise<Client> {
    const client = new Client({ name: 'gpu-mcp-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(
        new URL(`${backend.baseUrl}/api/mcp-actions/v1`),
        {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
          fetch: async (url, init) => {
            const res = await fetch(url, init);
            const body = init?.body ? JSON.parse(String(init.body)) : undefined;
            if (body?.method?.startsWith('tools/')) {
              transcript.exchange(CALLERS[caller], body, res.status, {
                contentType: res.headers.get('content-type') ?? '',
                text: await res.clone().text(),
              });
            }
            return res;
          },
        },
      ),
    );
    clients.push(client);
    return client;
  }

  const call = (client: Client, name: string, args: Record<string, unknown>) =>
    client.callTool({ name, arguments: args }) as Promise<{
      isError?: boolean;
      content: { type: string; text: string }[];
      structuredContent?: any;
    }>;

  it('lists the gpu tools with their schemas and annotations', async () => {
    const bob = await connect(await proxiedToken('bob'), 'bob');
    transcript.section(
      'The tools',
      'The gpu tools with their input schemas and annotations (read-only, idempotent, destructive).',
    );
    const { tools } = await bob.listTools();
    const gpu = tools.filter(t => t.name.startsWith('gpu.'));
    expect(gpu.map(t => t.name).sort()).toEqual(GPU_TOOLS);
    const byName = Object.fromEntries(gpu.map(t => [t.name, t]));

    expect(byName['gpu.quote-gpu-service']).toMatchObject({
      annotations: {
        title: 'Quote a GPU model service',
        readOnlyHint: true,
        idempotentHint: true,
        destructiveHint: false,
      },
      inputSchema: {
        type: 'object',
        required: expect.arrayContaining(['name', 'team', 'model']),
        properties: {
          tier: {
            type: 'string',
            enum: ['dedicated', 'mig', 'mps', 'time-sliced'],
          },
        },
      },
    });
    for (const name of [
      'gpu.list-gpu-services',
      'gpu.get-gpu-service-status',
      'gpu.get-gpu-service-cost',
      'gpu.list-gpu-team-quotas',
    ]) {
      expect(byName[name].annotations).toMatchObject({
        readOnlyHint: true,
        destructiveHint: false,
      });
    }
    expect(byName['gpu.create-gpu-service'].annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
    });
    expect(byName['gpu.delete-gpu-service']).toMatchObject({
      annotations: { readOnlyHint: false, destructiveHint: true },
      inputSchema: { required: ['serviceId'] },
    });
  });

  it("quotes, creates and lists a team's services, and refuses what the policy refuses, saying why", async () => {
    const bob = await connect(await proxiedToken('bob'), 'bob');
    const carol = await connect(await proxiedToken('carol'), 'carol');
    const guest = await connect(await guestToken(), 'guest');

    transcript.section(
      'A quote',
      'Bob asks what the report summariser would cost on every tier and pool, before creating anything, then for a tier that does not exist.',
    );
    const quote = await call(bob, 'gpu.quote-gpu-service', {
      ...summariser('summariser-quote', 'ml-platform'),
      tier: undefined,
      pool: undefined,
    });
    expect(quote.isError).toBeFalsy();
    expect(quote.structuredContent).toMatchObject({
      service: 'summariser-quote',
      team: 'ml-platform',
      recommended: {
        slice: { pool: expect.any(String) },
        verdict: 'allowed',
      },
    });
    expect(quote.structuredContent.options.length).toBeGreaterThan(1);
    expect(JSON.parse(quote.content[0].text)).toEqual(quote.structuredContent);

    const badTier = await call(bob, 'gpu.quote-gpu-service', {
      ...summariser('summariser-quote', 'ml-platform'),
      tier: 'gold',
    });
    expect(badTier).toMatchObject({
      isError: true,
      content: [
        {
          text: 'InputError: tier: expected one of dedicated, mig, mps, time-sliced, got "gold"',
        },
      ],
    });

    transcript.section(
      "Another team's quote",
      "Carol (search) asks for the same quote for ml-platform: she gets fit and price, not ml-platform's quota, use or budget, which she may not read.",
    );
    const carolsQuote = await call(carol, 'gpu.quote-gpu-service', {
      ...summariser('summariser-quote', 'ml-platform'),
      tier: undefined,
      pool: undefined,
    });
    expect(carolsQuote.isError).toBeFalsy();
    expect(carolsQuote.structuredContent.teamFiguresWithheld).toMatch(
      /may not read team ml-platform's quota/,
    );
    for (const option of [
      ...carolsQuote.structuredContent.options,
      carolsQuote.structuredContent.recommended,
    ]) {
      expect(option.quota).toBeUndefined();
      expect(option.budget).toBeUndefined();
      expect(option.cost.monthly).toBeGreaterThan(0);
    }

    transcript.section(
      'A service created and listed',
      "Bob creates the report summariser for his team, and carol the OCR batch case's service for hers; bob's list shows his team's services only, the guest's (platform team) every team's.",
    );
    const created = await call(bob, 'gpu.create-gpu-service', {
      request: summariser('bob-summariser', 'ml-platform'),
    });
    expect(created.structuredContent).toMatchObject({
      created: true,
      service: {
        name: 'bob-summariser',
        team: 'ml-platform',
        status: 'approved',
        createdBy: 'user:default/bob',
      },
    });
    const bobsId = created.structuredContent.service.id;
    const carols = await call(carol, 'gpu.create-gpu-service', {
      request: summariser('carol-ocr', 'search'),
    });
    const carolsId = carols.structuredContent.service.id;

    const ids = async (client: Client) =>
      (
        await call(client, 'gpu.list-gpu-services', {})
      ).structuredContent.items.map((s: { id: string }) => s.id);
    expect(await ids(bob)).toContain(bobsId);
    expect(await ids(bob)).not.toContain(carolsId);
    expect(await ids(guest)).toEqual(
      expect.arrayContaining([bobsId, carolsId]),
    );

    transcript.section(
      "Refused: another team's service",
      "Bob may neither create a service for search nor delete or cost carol's: the tool result is an error saying why.",
    );
    const forSearch = await call(bob, 'gpu.create-gpu-service', {
      request: summariser('not-bobs-team', 'search'),
    });
    expect(forSearch).toMatchObject({
      isError: true,
      content: [
        {
          text: expect.stringMatching(/^NotAllowedError: .*team search/),
        },
      ],
    });

    const deleteOthers = await call(bob, 'gpu.delete-gpu-service', {
      serviceId: carolsId,
    });
    expect(deleteOthers).toMatchObject({
      isError: true,
      content: [
        {
          text: expect.stringMatching(
            /^NotAllowedError: .*delete GPU service carol-ocr of team search/,
          ),
        },
      ],
    });
    const costOfOthers = await call(bob, 'gpu.get-gpu-service-cost', {
      serviceId: carolsId,
    });
    expect(costOfOthers).toMatchObject({
      isError: true,
      content: [{ text: expect.stringMatching(/^NotAllowedError: /) }],
    });
    const stillThere = await call(carol, 'gpu.get-gpu-service-status', {
      serviceId: carolsId,
    });
    expect(stillThere.structuredContent.service.status).toBe('approved');

    transcript.section("Bob's own service: its cost, then deleted");
    const cost = await call(bob, 'gpu.get-gpu-service-cost', {
      serviceId: bobsId,
      window: '24h',
    });
    expect(cost.structuredContent).toMatchObject({
      serviceId: bobsId,
      accrualBasis: 'dry-run',
    });

    const deleted = await call(bob, 'gpu.delete-gpu-service', {
      serviceId: bobsId,
    });
    expect(deleted.structuredContent.service.status).toBe('deleted');
  });

  it("gives every team's quota to the platform team and refuses it to others, naming the permission", async () => {
    const bob = await connect(await proxiedToken('bob'), 'bob');
    const guest = await connect(await guestToken(), 'guest');

    transcript.section(
      "Platform-wide: every team's quota",
      "Bob is refused the platform-wide view (it needs gpu.quota.read); the guest, in the platform team, reads every team's quota, held and left per pool.",
    );
    const refused = await call(bob, 'gpu.list-gpu-team-quotas', {});
    expect(refused).toMatchObject({
      isError: true,
      content: [
        {
          text: "NotAllowedError: You are not allowed to list every team's GPU quota without the gpu.quota.read permission",
        },
      ],
    });
    const quotas = await call(guest, 'gpu.list-gpu-team-quotas', {});
    expect(quotas.isError).toBeFalsy();
    const { items } = quotas.structuredContent;
    expect(items.map((q: { team: string }) => q.team).sort()).toEqual([
      'ml-platform',
      'search',
    ]);
    const ml = items.find((q: { team: string }) => q.team === 'ml-platform');
    expect(ml).toMatchObject({
      pools: { 'l4-ondemand': 4 },
      monthlyBudgetMicros: 60_000_000_000,
      reservedGpuEquivalents: expect.any(Object),
      remainingGpuEquivalents: {
        'l4-ondemand': 4 - (ml.reservedGpuEquivalents['l4-ondemand'] ?? 0),
      },
      remainingMonthlyBudgetMicros:
        60_000_000_000 - ml.reservedMonthlyCostMicros,
    });
  });

  it('names the field of a wrongly typed or missing argument', async () => {
    const bob = await connect(await proxiedToken('bob'), 'bob');

    transcript.section(
      'A wrongly typed and a missing argument',
      'The tool result is an InputError naming the field and what it expected; nothing is created.',
    );
    const mistyped = await call(bob, 'gpu.quote-gpu-service', {
      ...summariser('summariser-quote', 'ml-platform'),
      replicas: 'two',
    });
    expect(mistyped).toMatchObject({
      isError: true,
      content: [
        { text: 'InputError: replicas: expected a number, got string' },
      ],
    });
    const listed = async () =>
      (await call(bob, 'gpu.list-gpu-services', {})).structuredContent.items
        .length;
    const before = await listed();
    const { name: _name, ...unnamed } = summariser('unnamed', 'ml-platform');
    const missing = await call(bob, 'gpu.create-gpu-service', {
      request: unnamed,
    });
    expect(missing).toMatchObject({
      isError: true,
      content: [
        { text: 'InputError: request.name: required, expected a string' },
      ],
    });
    expect(await listed()).toBe(before);
  });

  it("limits each caller's gpu tool calls as app-config limits REST requests (300 a minute), not another caller's", async () => {
    const carol = await connect(await proxiedToken('carol'), 'carol');
    const quote = () =>
      call(carol, 'gpu.quote-gpu-service', summariser('limited', 'search'));
    let accepted = 0;
    let refused: Awaited<ReturnType<typeof quote>> | undefined;
    for (let i = 0; i < 400 && !refused; i++) {
      const result = await quote();
      if (result.isError) refused = result;
      else accepted += 1;
    }
    // carol's earlier calls of this suite count too.
    expect(accepted).toBeGreaterThan(250);
    expect(accepted).toBeLessThanOrEqual(300);
    expect(refused?.content[0].text).toMatch(
      /^ServiceUnavailableError: Too many gpu tool calls: at most 300 every 60 s per caller; try again in \d+ s$/,
    );
    const bob = await connect(await proxiedToken('bob'), 'bob');
    expect(
      (
        await call(
          bob,
          'gpu.quote-gpu-service',
          summariser('other', 'ml-platform'),
        )
      ).isError,
    ).toBeFalsy();
  });

  it('refuses a client without a Backstage token', async () => {
    const res = await fetch(`${backend.baseUrl}/api/mcp-actions/v1`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
  });
});
