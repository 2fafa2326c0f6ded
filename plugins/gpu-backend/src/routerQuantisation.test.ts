import { summariserRequest } from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import type { KubernetesObject, V1Deployment } from '@kubernetes/client-node';
import request from 'supertest';
import { startDemoPolicyBackend } from './__testUtils__/startDemoPolicyBackend';

jest.setTimeout(60_000);

const start = () => startDemoPolicyBackend();

/** Mistral-7B has no int4 checkpoint for vLLM in the built-in catalogue. */
const mistralInt4 = {
  ...summariserRequest,
  name: 'mistral-chat',
  model: 'mistral-7b',
  dtype: 'int4',
  maxModelLen: 4096,
  concurrency: 8,
  environment: 'dev',
};
const REASON =
  'The model catalogue names no int4 Hugging Face checkpoint of mistral-7b for vllm; available: bf16, fp16 or fp8';

describe('quantisation from the API to the rendered container', () => {
  it('quotes a dtype without a checkpoint as unavailable with the reason', async () => {
    const server = await start();
    const quote = await request(server)
      .post('/api/gpu/quote')
      .send(mistralInt4)
      .expect(200);
    expect(quote.body.dtype).toBe('int4');
    expect(quote.body.options).toEqual([]);
    expect(quote.body.recommended).toBeUndefined();
    expect(
      quote.body.dtypes.find((d: { dtype: string }) => d.dtype === 'int4'),
    ).toEqual({ dtype: 'int4', available: false, reason: REASON });
  });

  it('refuses to create or preview it with a 400 naming the available dtypes', async () => {
    const server = await start();
    for (const dryRun of [true, false]) {
      const res = await request(server)
        .post('/api/gpu/services')
        .send({ request: mistralInt4, dryRun })
        .expect(400);
      expect(res.body.error.name).toBe('InputError');
      expect(res.body.error.message).toBe(REASON);
    }
    const list = await request(server).get('/api/gpu/services').expect(200);
    expect(JSON.stringify(list.body)).not.toContain('mistral-chat');
  });

  it("previews int4 with the AWQ repository and --quantization awq, sized by that checkpoint's bytes", async () => {
    const server = await start();
    const int4 = { ...summariserRequest, dtype: 'int4' };
    const quote = await request(server)
      .post('/api/gpu/quote')
      .send(int4)
      .expect(200);
    // (8.03 - 1.05) B x (0.5 + 2.5 / 128) bytes + 1.05 B x 2 bytes.
    expect(quote.body.recommended.memory.weightsBytes).toBeCloseTo(
      6.98e9 * 0.51953125 + 2.1e9,
      -3,
    );
    const preview = await request(server)
      .post('/api/gpu/services')
      .send({ request: int4, dryRun: true })
      .expect(200);
    const deployment = (preview.body.manifests as KubernetesObject[]).find(
      m => m.kind === 'Deployment',
    ) as V1Deployment;
    const args = deployment.spec!.template.spec!.containers[0].args!;
    const value = (flag: string) => args[args.indexOf(flag) + 1];
    expect(value('--model')).toBe(
      'hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4',
    );
    expect(value('--quantization')).toBe('awq');
    expect(value('--dtype')).toBe('auto');
  });
});
