import { ConfigReader } from '@backstage/config';
import { readPlatformGroups } from './readPlatformGroups';

describe('readPlatformGroups', () => {
  it('reads gpu.permissions.platformGroups, by default the platform team', () => {
    expect(readPlatformGroups(new ConfigReader({}))).toEqual([
      'group:default/platform-team',
    ]);
    expect(
      readPlatformGroups(
        new ConfigReader({
          gpu: {
            permissions: {
              platformGroups: ['group:default/SRE', 'group:ops/gpu-admins'],
            },
          },
        }),
      ),
    ).toEqual(['group:default/sre', 'group:ops/gpu-admins']);
  });

  it('refuses an entry that is not a full group ref', () => {
    for (const bad of ['platform-team', 'user:default/alice', 'group:x']) {
      expect(() =>
        readPlatformGroups(
          new ConfigReader({
            gpu: { permissions: { platformGroups: [bad] } },
          }),
        ),
      ).toThrow(`'${bad}' is not a group entity ref`);
    }
  });
});
