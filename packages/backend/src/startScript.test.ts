import { spawnSync } from 'node:child_process';
import { createServer, Server } from 'node:net';
import { resolve } from 'node:path';

const START = resolve(__dirname, '../../../scripts/start');

function listen(): Promise<{ server: Server; port: number }> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      done({
        server,
        port: typeof address === 'object' && address ? address.port : 0,
      });
    });
  });
}

describe('scripts/start', () => {
  it.each([[['--cluster']], [[]]])(
    'stops before installing or starting anything when a port of the app is taken (args %j)',
    async args => {
      const { server, port } = await listen();
      try {
        const result = spawnSync('bash', [START, ...args], {
          env: { ...process.env, APP_PORTS: `${port}` },
          encoding: 'utf8',
          timeout: 30_000,
        });
        expect(result.status).toBe(1);
        expect(result.stderr).toContain(
          `Port ${port} is already in use (another ./scripts/start or yarn start?)`,
        );
        expect(result.stderr).toContain('Nothing was started.');
        // Not Node's stack, and no cluster was brought up first.
        expect(result.stderr).not.toContain('EADDRINUSE');
        expect(result.stdout + result.stderr).not.toMatch(/local cluster/i);
      } finally {
        server.close();
      }
    },
  );
});
