import { PrometheusClient } from './PrometheusClient';
import { DcgmLabelNames } from './PrometheusConfig';
import { collectSharedSteps, SharedTarget } from './sharedQueries';
import { stepGrid } from './stepGrid';

const labels: DcgmLabelNames = {
  hostname: 'Hostname',
  gpu: 'gpu',
  migInstance: 'GPU_I_ID',
  migProfile: 'GPU_I_PROFILE',
};
const grid = stepGrid(3600, 3600, 1800);
const times = [grid.start - grid.step, ...grid.times, grid.end + grid.step];
const values = (value: number) => times.map(t => [t, String(value)]);

/** The presence answer: two pods of the target `chat` and a pod of another team's `search` on one MPS GPU. */
const presence = (
  [
    ['ml', 'chat-5d8f7-abcde', 60],
    ['ml', 'chat-5d8f7-fghij', 60],
    ['search', 'ranker-77c4b-klmno', 60],
  ] as Array<[string, string, number]>
).map(([namespace, pod, value]) => ({
  metric: { namespace, pod, Hostname: 'mps-node-1', gpu: '0' },
  values: values(value),
}));

/** vLLM token series of every pod Prometheus has, whatever the selector (the test checks what was asked). */
const tokenSeries = (
  [
    ['ml', 'chat-5d8f7-abcde', 30],
    ['ml', 'chat-5d8f7-fghij', 10],
    ['ml', 'chat-other-qrstu', 5],
    ['search', 'ranker-77c4b-klmno', 20],
  ] as Array<[string, string, number]>
).map(([namespace, pod, value]) => ({
  metric: { namespace, pod },
  values: values(value),
}));

/**
 * A Prometheus that answers token queries at once with the series their `pod` regex matches and holds the presence
 * query until `answerPresence` is called, recording the order of requests and answers.
 */
function fakePrometheus() {
  const events: string[] = [];
  let answerPresence: () => void = () => {
    throw new Error('the presence query was not sent');
  };
  const matrix = (result: unknown[]) =>
    new Response(
      JSON.stringify({
        status: 'success',
        data: { resultType: 'matrix', result },
      }),
      { headers: { 'content-type': 'application/json' } },
    );
  const fetchImpl = (async (_url: string, init: RequestInit) => {
    const query = new URLSearchParams(String(init.body)).get('query')!;
    if (query.startsWith('sum by (namespace,pod)')) {
      const podRegex = /pod=~"([^"]*)"/.exec(query)![1].replace(/\\\\/g, '\\');
      const pods = new RegExp(`^${podRegex}$`);
      const asked = tokenSeries.filter(s => pods.test(s.metric.pod));
      events.push(`tokens of ${asked.map(s => s.metric.pod).join(', ')}`);
      return matrix(asked);
    }
    events.push('presence sent');
    await new Promise<void>(resolve => {
      answerPresence = resolve;
    });
    events.push('presence answered');
    return matrix(presence);
  }) as unknown as typeof fetch;
  return { events, fetchImpl, answer: () => answerPresence() };
}

/** Starts `collectSharedSteps` for `targets` on a {@link fakePrometheus} and lets its first queries go out. */
async function collect(targets: SharedTarget[]) {
  const prometheus = fakePrometheus();
  const client = new PrometheusClient(
    { baseUrl: 'http://prometheus', timeoutMs: 5000 },
    prometheus.fetchImpl,
  );
  const collected = collectSharedSteps({ client, targets, grid, labels });
  await new Promise(resolve => setTimeout(resolve, 10));
  return { prometheus, client, collected };
}

describe('collectSharedSteps', () => {
  it("asks the targets' tokens alongside the presence query and only the other teams' neighbours after it", async () => {
    const { prometheus, client, collected } = await collect([
      { namespace: 'ml', deployment: 'chat' },
    ]);
    // Both in flight before the presence query answers: the target's pods' tokens do not wait for it.
    expect(prometheus.events).toEqual([
      'presence sent',
      'tokens of chat-5d8f7-abcde, chat-5d8f7-fghij, chat-other-qrstu',
    ]);
    prometheus.answer();
    const families = await collected;
    expect(prometheus.events.slice(2)).toEqual([
      'presence answered',
      'tokens of ranker-77c4b-klmno',
    ]);
    expect(client.queryCount).toBe(3);
    // The tokens of the pods on the GPU, from both answers; not of a target pod absent from it.
    expect(
      families.sharedTokens?.ok &&
        families.sharedTokens.data.map(t => [
          t.pod,
          t.points.get(grid.times[0]),
        ]),
    ).toEqual([
      ['chat-5d8f7-abcde', 30],
      ['chat-5d8f7-fghij', 10],
      ['ranker-77c4b-klmno', 20],
    ]);
  });

  it('sends no query after the presence when every pod on the GPUs is a target', async () => {
    const { prometheus, client, collected } = await collect([
      { namespace: 'ml', deployment: 'chat' },
      { namespace: 'search', deployment: 'ranker' },
    ]);
    prometheus.answer();
    const families = await collected;
    expect(client.queryCount).toBe(2);
    expect(
      families.sharedTokens?.ok && families.sharedTokens.data.map(t => t.pod),
    ).toEqual(['chat-5d8f7-abcde', 'chat-5d8f7-fghij', 'ranker-77c4b-klmno']);
  });
});
