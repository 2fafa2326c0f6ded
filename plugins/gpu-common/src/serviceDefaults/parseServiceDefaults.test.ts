import { demoPlatformConfig } from '../platform/demoPlatformConfig';
import { parsePlatform } from '../platform/parsePlatform';
import { parseServiceDefaults } from './parseServiceDefaults';

const platform = parsePlatform(demoPlatformConfig);

describe('parseServiceDefaults', () => {
  it('is empty when not configured', () => {
    expect(parseServiceDefaults(undefined, platform)).toEqual({
      defaults: {},
      byPool: {},
      byEnvironment: {},
    });
  });

  it('parses the defaults and the per-pool and per-environment overrides into typed settings', () => {
    const parsed = parseServiceDefaults(
      {
        huggingFaceTokenSecret: { name: 'hf-token', key: 'token' },
        images: { registry: 'mirror.example.com/hub' },
        podMonitor: true,
        scaleToZero: { httpAddOn: {} },
        byPool: {
          'l4-ondemand': { modelCache: { existingClaim: 'hf-cache' } },
        },
        byEnvironment: {
          production: {
            podMonitor: { labels: { release: 'kube-prometheus' } },
            scaleToZero: {
              wakeQuery:
                'sum(gateway_pending{namespace="{{namespace}}",service="{{service}}"})',
            },
          },
          dev: { podMonitor: false },
        },
      },
      platform,
    );
    expect(parsed).toEqual({
      defaults: {
        huggingFaceTokenSecret: { name: 'hf-token', key: 'token' },
        images: { registry: 'mirror.example.com/hub' },
        podMonitor: { enabled: true, labels: {} },
        wakeTrigger: { type: 'http-add-on', scaledownPeriodSeconds: 300 },
      },
      byPool: { 'l4-ondemand': { modelCache: { existingClaim: 'hf-cache' } } },
      byEnvironment: {
        production: {
          podMonitor: { enabled: true, labels: { release: 'kube-prometheus' } },
          wakeTrigger: {
            type: 'prometheus',
            query:
              'sum(gateway_pending{namespace="{{namespace}}",service="{{service}}"})',
          },
        },
        dev: { podMonitor: { enabled: false, labels: {} } },
      },
    });
  });

  it('names every bad key by its path and says what is allowed', () => {
    expect(() =>
      parseServiceDefaults(
        {
          images: { vllm: 'https://registry/vllm:latest' },
          runtimeClass: 'nvidia',
          byPool: { 'h100-spot': {} },
          byEnvironment: {
            production: { scaleToZero: { wakeQuery: 'sum(gateway_pending)' } },
          },
        },
        platform,
      ),
    ).toThrow(
      /gpu\.serviceDefaults\.images\.vllm: must be an image reference.*gpu\.serviceDefaults: unknown key "runtimeClass"; allowed keys are huggingFaceTokenSecret, images/,
    );
    expect(() =>
      parseServiceDefaults(
        {
          byPool: { 'h100-spot': {} },
          byEnvironment: {
            production: { scaleToZero: { wakeQuery: 'sum(gateway_pending)' } },
          },
        },
        platform,
      ),
    ).toThrow(
      /2 problems: gpu\.serviceDefaults\.byPool\.h100-spot: no pool is named "h100-spot"; allowed: .*l4-ondemand.*gpu\.serviceDefaults\.byEnvironment\.production\.scaleToZero\.wakeQuery: must select the service with \{\{service\}\}/,
    );
  });

  it('refuses a model cache with both a storage class and a shared claim', () => {
    expect(() =>
      parseServiceDefaults(
        { modelCache: { storageClassName: 'gp3', existingClaim: 'hf-cache' } },
        platform,
      ),
    ).toThrow(/gpu\.serviceDefaults\.modelCache: give either storageClassName/);
  });
});
