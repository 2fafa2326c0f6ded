import { Config } from '@backstage/config';
import { InputError } from '@backstage/errors';

/**
 * The groups whose members run the GPU platform when `gpu.permissions.platformGroups` is not set.
 *
 * @public
 */
export const DEFAULT_PLATFORM_GROUPS = ['group:default/platform-team'];

const GROUP_REF = /^group:[a-z0-9][-a-z0-9_.]*\/[a-z0-9][-a-z0-9_.]*$/i;

/**
 * `gpu.permissions.platformGroups`: the group entity refs whose members administer the GPU platform (approve
 * requests, change quotas and budgets, act on every team's services) and are notified of pending requests.
 *
 * @throws InputError when an entry is not a full group ref such as `group:default/platform-team`.
 * @public
 */
export function readPlatformGroups(config: Config): string[] {
  const groups =
    config.getOptionalStringArray('gpu.permissions.platformGroups') ??
    DEFAULT_PLATFORM_GROUPS;
  for (const group of groups) {
    if (!GROUP_REF.test(group)) {
      throw new InputError(
        `gpu.permissions.platformGroups: '${group}' is not a group entity ref such as group:default/platform-team`,
      );
    }
  }
  return groups.map(g => g.toLocaleLowerCase('en-US'));
}
