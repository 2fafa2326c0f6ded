import { createMockActionContext } from '@backstage/plugin-scaffolder-node-test-utils';

/** Everything a mocked action context received through `ctx.output`, by name. */
export function outputsOf(ctx: { output: unknown }): Record<string, any> {
  return Object.fromEntries((ctx.output as jest.Mock).mock.calls);
}

/** A mocked action context for any action's input (the actions validate their input themselves). */
export function mockContext(
  input: object,
  options: { taskId?: string; isDryRun?: boolean; workspacePath?: string } = {},
) {
  const ctx = createMockActionContext<any, any>({
    input,
    ...(options.taskId ? { task: { id: options.taskId } } : {}),
    ...(options.workspacePath ? { workspacePath: options.workspacePath } : {}),
  });
  return options.isDryRun ? { ...ctx, isDryRun: true } : ctx;
}

/**
 * A mocked action context whose checkpoints persist in `store` like the scaffolder's task state, so running a
 * handler twice with the same store behaves like a retried task.
 */
export function createCheckpointingContext(
  input: Record<string, any>,
  store: Map<string, unknown>,
  overrides: { taskId?: string } = {},
) {
  const ctx = createMockActionContext<any, any>({
    input,
    task: { id: overrides.taskId ?? 'task-1' },
  });
  ctx.checkpoint = async ({ key, fn }) => {
    if (store.has(key)) {
      return store.get(key) as any;
    }
    const value = await fn();
    store.set(key, value);
    return value;
  };
  return ctx;
}
