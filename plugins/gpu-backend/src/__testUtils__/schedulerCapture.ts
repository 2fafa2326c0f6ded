import {
  coreServices,
  createBackendModule,
  SchedulerService,
} from '@backstage/backend-plugin-api';

/**
 * A module of the gpu plugin that hands its scheduler to the test, so a test can trigger the plugin's scheduled
 * tasks (`scheduler.triggerTask(id)`) instead of waiting for their frequency. Two captures in one backend need
 * module ids of their own.
 */
export function schedulerCapture(moduleId = 'test-scheduler-capture') {
  let captured: SchedulerService | undefined;
  const module = createBackendModule({
    pluginId: 'gpu',
    moduleId,
    register(env) {
      env.registerInit({
        deps: { scheduler: coreServices.scheduler },
        async init({ scheduler }) {
          captured = scheduler;
        },
      });
    },
  });
  return {
    module,
    scheduler(): SchedulerService {
      if (!captured) throw new Error('The gpu plugin has not started');
      return captured;
    },
  };
}
