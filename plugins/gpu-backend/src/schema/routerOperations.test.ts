import Router from 'express-promise-router';
import { routerOperations } from './routerOperations';

describe('routerOperations', () => {
  it('lists routes of the router and of sub-routers mounted with or without a path', () => {
    const noop = () => {};
    const usage = Router();
    usage.get('/services/:id/usage', noop);
    const teams = Router();
    teams.get('/cost', noop);
    const router = Router();
    router.get('/health', noop);
    router.post('/approvals/:id/:decision(approve|reject)', noop);
    router.route('/services/:id').get(noop).patch(noop);
    router.use(usage);
    router.use('/teams/:team', teams);

    expect(routerOperations(router)).toEqual([
      { method: 'post', path: '/approvals/{id}/approve' },
      { method: 'post', path: '/approvals/{id}/reject' },
      { method: 'get', path: '/health' },
      { method: 'get', path: '/services/{id}' },
      { method: 'patch', path: '/services/{id}' },
      { method: 'get', path: '/services/{id}/usage' },
      { method: 'get', path: '/teams/{team}/cost' },
    ]);
  });

  it('refuses paths OpenAPI cannot describe', () => {
    const router = Router();
    router.get('/files/*', () => {});
    expect(() => routerOperations(router)).toThrow(/files/);
  });
});
