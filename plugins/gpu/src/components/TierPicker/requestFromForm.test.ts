import { PREVIEW_SERVICE_NAME, requestFromForm } from './requestFromForm';

describe('requestFromForm', () => {
  const form = {
    owner: 'group:default/ml-platform',
    name: 'summariser',
    model: 'llama-3.1-8b',
    runtime: 'vllm',
    maxModelLen: 8192,
    concurrency: 16,
    replicas: 2,
    environment: 'dev',
  };

  it('maps the template fields onto a service request', () => {
    expect(
      requestFromForm({ ...form, dtype: 'fp8', expectedTokensPerSecond: 50 }),
    ).toEqual({
      request: {
        name: 'summariser',
        team: 'ml-platform',
        model: 'llama-3.1-8b',
        runtime: 'vllm',
        dtype: 'fp8',
        maxModelLen: 8192,
        concurrency: 16,
        replicas: 2,
        environment: 'dev',
        expectedTokensPerSecond: 50,
      },
    });
  });

  it('passes a benchmarked per-replica capacity when the form has one', () => {
    expect(
      requestFromForm({ ...form, measuredTokensPerSecond: 1500 }).request,
    ).toMatchObject({ measuredTokensPerSecond: 1500 });
    expect(
      requestFromForm(form).request!.measuredTokensPerSecond,
    ).toBeUndefined();
  });

  it('passes the full-length sequences to hold at once when the form has them', () => {
    expect(
      requestFromForm({ ...form, concurrentSequences: '8' }).request,
    ).toMatchObject({ concurrency: 16, concurrentSequences: 8 });
    expect(requestFromForm(form).request!.concurrentSequences).toBeUndefined();
  });

  it('quotes a vLLM latency budget as the template’s steps send it, and none for Ollama', () => {
    expect(
      requestFromForm({ ...form, latencyBudgetSeconds: 2 }).request,
    ).toMatchObject({ latencyBudget: { p95Seconds: 2 } });
    expect(
      requestFromForm({ ...form, latencyBudgetSeconds: '2.5' }).request,
    ).toMatchObject({ latencyBudget: { p95Seconds: 2.5 } });
    expect(requestFromForm(form).request!.latencyBudget).toBeUndefined();
    // A form switched to Ollama keeps the hidden field's value: it is not quoted, as the template does not send it.
    expect(
      requestFromForm({
        ...form,
        runtime: 'ollama',
        latencyBudgetSeconds: 2,
      }).request!.latencyBudget,
    ).toBeUndefined();
    // Empty or not a positive number: no budget (the form's own validation names the field).
    for (const latencyBudgetSeconds of ['', 0, -1, 'soon']) {
      expect(
        requestFromForm({ ...form, latencyBudgetSeconds }).request!
          .latencyBudget,
      ).toBeUndefined();
    }
  });

  it('takes a bare group name, numbers typed as text, quantization for dtype and 1 replica by default', () => {
    const { request } = requestFromForm({
      ...form,
      owner: 'search',
      maxModelLen: '4096',
      replicas: undefined,
      quantization: 'int4',
    });
    expect(request).toMatchObject({
      team: 'search',
      maxModelLen: 4096,
      replicas: 1,
      dtype: 'int4',
    });
  });

  it('quotes under a placeholder while the name is empty or not a DNS label', () => {
    expect(requestFromForm({ ...form, name: '' }).request?.name).toBe(
      PREVIEW_SERVICE_NAME,
    );
    expect(requestFromForm({ ...form, name: 'My Service' }).request?.name).toBe(
      PREVIEW_SERVICE_NAME,
    );
  });

  it('lists the fields still missing or unusable', () => {
    expect(requestFromForm(undefined).missing).toEqual([
      'owner',
      'model',
      'runtime',
      'maxModelLen',
      'concurrency',
      'environment',
    ]);
    expect(
      requestFromForm({
        ...form,
        runtime: 'triton',
        concurrency: 0,
        maxModelLen: 1.5,
      }).missing,
    ).toEqual(['runtime', 'maxModelLen', 'concurrency']);
  });

  it('quotes the scaling chosen with its own branch’s fields, as the template’s create step sends them', () => {
    const queue = { minReplicas: 1, maxReplicas: 3, targetQueueDepth: 4 };
    const zero = { minReplicas: 0, maxReplicas: 2, targetQueueDepth: 2 };
    // A form switched from the queue to scale to zero keeps the queue branch's values: they are not quoted.
    const both = { ...form, autoscaling: queue, scaleToZero: zero };
    expect(requestFromForm({ ...both, scaling: 'zero' }).request).toMatchObject(
      { autoscaling: { ...zero, engine: 'keda' } },
    );
    expect(
      requestFromForm({ ...both, scaling: 'queue' }).request,
    ).toMatchObject({ autoscaling: { ...queue, engine: 'keda' } });
    expect(
      requestFromForm({ ...both, scaling: 'fixed' }).request!.autoscaling,
    ).toBeUndefined();
    expect(requestFromForm(both).request!.autoscaling).toBeUndefined();
    expect(
      requestFromForm({
        ...form,
        scaling: 'queue',
        autoscaling: { minReplicas: 1, maxReplicas: '' },
      }).missing,
    ).toEqual(['autoscaling.maxReplicas', 'autoscaling.targetQueueDepth']);
  });
});
