import { createBackend } from '@backstage/backend-defaults';
import { mockServices } from '@backstage/backend-test-utils';

// A standalone backend for working on the gpu plugin (`yarn start` in this package).
// Mocked auth accepts `Authorization: Bearer mock-user-token`, for example:
//   curl http://localhost:7007/api/gpu/platform -H 'Authorization: Bearer mock-user-token'
const backend = createBackend();
backend.add(mockServices.auth.factory());
backend.add(mockServices.httpAuth.factory());
backend.add(import('../src'));
backend.start();
