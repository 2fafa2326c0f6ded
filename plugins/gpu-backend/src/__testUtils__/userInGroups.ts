import {
  coreServices,
  createServiceFactory,
} from '@backstage/backend-plugin-api';
import { mockCredentials, mockServices } from '@backstage/backend-test-utils';

/** The mock user's userInfo, as a member of the given groups (catalog group names in the default namespace). */
export function userInGroups(groups: string[]) {
  return createServiceFactory({
    service: coreServices.userInfo,
    deps: {},
    factory: () =>
      mockServices.userInfo({
        userEntityRef: mockCredentials.user().principal.userEntityRef,
        ownershipEntityRefs: groups.map(group => `group:default/${group}`),
      }),
  });
}
