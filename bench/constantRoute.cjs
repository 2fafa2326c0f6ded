/**
 * The benchmark's backend with one more plugin (bench/httpBackend.ts, `constantRoute: true`, runs this file instead
 * of packages/backend/src/index.ts, from packages/backend): adds a backend plugin `bench-constant` to the backend
 * that src/index.ts creates, then runs src/index.ts. The plugin serves
 * `GET /api/bench-constant/constant`, the minimal authenticated route the quote is compared with: the same auth
 * check as every gpu route (`httpAuth.credentials`, users and services), then a constant serialised. The product's
 * backend is untouched: `createBackend` of @backstage/backend-defaults is wrapped before index.ts calls it.
 */
const {
  coreServices,
  createBackendPlugin,
} = require('@backstage/backend-plugin-api');
const defaults = require('@backstage/backend-defaults');
const Router = require('express-promise-router');
const { resolve } = require('node:path');

const CONSTANT = { ok: true };

const benchConstantPlugin = createBackendPlugin({
  pluginId: 'bench-constant',
  register(env) {
    env.registerInit({
      deps: {
        httpRouter: coreServices.httpRouter,
        httpAuth: coreServices.httpAuth,
      },
      async init({ httpRouter, httpAuth }) {
        const router = (Router.default ?? Router)();
        router.get('/constant', async (req, res) => {
          await httpAuth.credentials(req, { allow: ['user', 'service'] });
          res.json(CONSTANT);
        });
        httpRouter.use(router);
      },
    });
  },
});

const createBackend = defaults.createBackend;
defaults.createBackend = (...args) => {
  const backend = createBackend(...args);
  backend.add(benchConstantPlugin);
  return backend;
};

require(resolve(process.cwd(), 'src/index.ts'));
