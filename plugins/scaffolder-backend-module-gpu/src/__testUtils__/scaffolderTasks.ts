/** A JSON call to a test backend: its status and parsed body. */
export type BackendApi = (
  method: string,
  route: string,
  body?: unknown,
) => Promise<{ status: number; body: any }>;

/** Calls the test backend at the base URL `baseUrl()` gives (read per call: it is known only once the backend runs). */
export function backendApi(baseUrl: () => string): BackendApi {
  return async (method, route, body) => {
    const res = await fetch(`${baseUrl()}${route}`, {
      method,
      headers: body ? { 'content-type': 'application/json' } : {},
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
}

/**
 * Runs a template through the scaffolder's API and waits for the task to complete or fail: the task, its log (the
 * events' messages) and its output.
 */
export async function runTemplateTask(
  api: BackendApi,
  templateName: string,
  values: Record<string, unknown>,
  options: { timeoutMs?: number } = {},
) {
  const created = await api('POST', '/api/scaffolder/v2/tasks', {
    templateRef: `template:default/${templateName}`,
    values,
  });
  if (created.status !== 201) {
    throw new Error(
      `The scaffolder refused ${templateName} with ${
        created.status
      }: ${JSON.stringify(created.body)}`,
    );
  }
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  let task: any;
  for (;;) {
    task = (await api('GET', `/api/scaffolder/v2/tasks/${created.body.id}`))
      .body;
    if (['completed', 'failed'].includes(task.status)) break;
    if (Date.now() > deadline) {
      throw new Error(`Timed out waiting for task ${templateName} to finish`);
    }
    await new Promise(resolve => setTimeout(resolve, 250));
  }
  const events = await api(
    'GET',
    `/api/scaffolder/v2/tasks/${created.body.id}/events`,
  );
  const log: string = events.body
    .map((e: { body: { message?: string } }) => e.body.message)
    .join('\n');
  const completion = events.body.find(
    (e: { type: string }) => e.type === 'completion',
  );
  return { task, log, output: completion?.body.output };
}
