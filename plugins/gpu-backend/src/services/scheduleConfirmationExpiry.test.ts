import { mockServices } from '@backstage/backend-test-utils';
import { scheduleConfirmationExpiry } from './scheduleConfirmationExpiry';
import { readStatusSettings } from './scheduleStatusTasks';

describe('gpu-confirmation-expiry schedule', () => {
  it('looks for unconfirmed services once a minute unless gpu.services.confirmationCheckFrequency says otherwise', () => {
    expect(
      readStatusSettings(mockServices.rootConfig({ data: {} }))
        .confirmationCheckFrequency,
    ).toEqual({ minutes: 1 });
    const settings = readStatusSettings(
      mockServices.rootConfig({
        data: {
          gpu: {
            services: {
              confirmWithin: { seconds: 60 },
              confirmationCheckFrequency: { seconds: 5 },
            },
          },
        },
      }),
    );
    expect(settings.confirmWithinMs).toBe(60_000);
    expect(settings.confirmationCheckFrequency).toEqual({ seconds: 5 });
    expect(() =>
      readStatusSettings(
        mockServices.rootConfig({
          data: {
            gpu: { services: { confirmationCheckFrequency: { seconds: 0 } } },
          },
        }),
      ),
    ).toThrow(
      'Invalid config at gpu.services.confirmationCheckFrequency: must be longer than zero',
    );
  });

  it('schedules the task at that frequency, on one replica at a time', async () => {
    const scheduleTask = jest.fn();
    const expireUnconfirmed = jest.fn(async () => []);
    await scheduleConfirmationExpiry({
      scheduler: { scheduleTask } as any,
      services: { expireUnconfirmed },
      logger: mockServices.logger.mock(),
      frequency: { seconds: 5 },
    });
    expect(scheduleTask).toHaveBeenCalledWith(
      expect.objectContaining({
        id: 'gpu-confirmation-expiry',
        frequency: { seconds: 5 },
        scope: 'global',
      }),
    );
    await scheduleTask.mock.calls[0][0].fn();
    expect(expireUnconfirmed).toHaveBeenCalledTimes(1);
  });
});
