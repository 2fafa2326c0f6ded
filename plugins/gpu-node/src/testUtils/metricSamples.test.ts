import { metricSamples } from './metricSamples';

describe('metricSamples', () => {
  const text = [
    '# HELP apiserver_longrunning_requests [STABLE] Gauge of all active long-running apiserver requests',
    '# TYPE apiserver_longrunning_requests gauge',
    'apiserver_longrunning_requests{component="apiserver",group="apps",resource="deployments",scope="cluster",subresource="",verb="WATCH",version="v1"} 3',
    'apiserver_longrunning_requests{component="apiserver",group="",resource="pods",scope="namespace",subresource="log",verb="GET",version="v1"} 1',
    'apiserver_longrunning_requests_other{verb="WATCH"} 9',
    'apiserver_request_total{code="200",verb="GET",note="a \\"quoted\\" value"} 12',
  ].join('\n');

  it('reads the samples of one metric with their labels, and no other metric', () => {
    expect(metricSamples(text, 'apiserver_longrunning_requests')).toEqual([
      {
        labels: {
          component: 'apiserver',
          group: 'apps',
          resource: 'deployments',
          scope: 'cluster',
          subresource: '',
          verb: 'WATCH',
          version: 'v1',
        },
        value: 3,
      },
      {
        labels: {
          component: 'apiserver',
          group: '',
          resource: 'pods',
          scope: 'namespace',
          subresource: 'log',
          verb: 'GET',
          version: 'v1',
        },
        value: 1,
      },
    ]);
  });

  it('keeps a label value with escaped quotes whole', () => {
    expect(metricSamples(text, 'apiserver_request_total')).toEqual([
      {
        labels: { code: '200', verb: 'GET', note: 'a \\"quoted\\" value' },
        value: 12,
      },
    ]);
  });
});
