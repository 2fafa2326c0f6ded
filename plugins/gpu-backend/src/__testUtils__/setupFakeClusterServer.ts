import { setupServer, SetupServer } from 'msw/node';

/**
 * An msw server for tests that serve a fake cluster API, listening for the duration of the test file. Requests to the
 * test backend itself (localhost) pass through; any other unhandled request is an error.
 */
export function setupFakeClusterServer(): SetupServer {
  const server = setupServer();
  beforeAll(() =>
    server.listen({
      onUnhandledRequest: (req, print) => {
        if (!['127.0.0.1', 'localhost'].includes(new URL(req.url).hostname)) {
          print.error();
        }
      },
    }),
  );
  afterEach(() => server.resetHandlers());
  afterAll(() => server.close());
  return server;
}
