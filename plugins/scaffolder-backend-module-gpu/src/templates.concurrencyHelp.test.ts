import {
  demoPlatformConfig,
  fitSlices,
  parsePlatform,
  validateServiceRequest,
} from '@gpu-platform/backstage-plugin-gpu-common';
import fs from 'node:fs';
import path from 'node:path';
import yaml from 'yaml';

const TEMPLATES = path.resolve(__dirname, '../../../templates');
const platform = parsePlatform(demoPlatformConfig);

/** Which slices a request fits, by slice, at a given concurrency. */
function fits(runtime: 'vllm' | 'ollama', concurrency: number): string[] {
  const request = validateServiceRequest(platform, {
    name: 'summariser',
    team: 'ml-platform',
    model: 'llama-3.1-8b',
    runtime,
    ...(runtime === 'ollama' ? { dtype: 'fp16' } : {}),
    maxModelLen: 8192,
    concurrency,
    replicas: 1,
    environment: 'dev',
  });
  return fitSlices(platform, request)
    .filter(r => r.fits)
    .map(r => `${r.slice.tier}/${r.slice.pool}/${r.slice.migProfile ?? ''}`);
}

/** The Concurrent requests field of a model service template. */
function concurrencyField(dir: string): { title: string; description: string } {
  const template = yaml.parse(
    fs.readFileSync(path.join(TEMPLATES, dir, 'template.yaml'), 'utf8'),
  );
  const page = template.spec.parameters.find(
    (p: { properties?: Record<string, unknown> }) => p.properties?.concurrency,
  );
  return page.properties.concurrency;
}

// Issue 25: 'for vLLM, "Concurrent requests" does not change the fit though its help says it does'.
describe('Concurrent requests help says what the sizing does with it', () => {
  it('vLLM fits the same slices at any concurrency; Ollama needs more memory with more', () => {
    expect(fits('vllm', 256)).toEqual(fits('vllm', 1));
    expect(fits('ollama', 64).length).toBeLessThan(fits('ollama', 1).length);
  });

  it.each(['gpu-model-service', 'gpu-model-service-gitops'])(
    '%s says so, and where to size vLLM for long requests held together',
    dir => {
      const field = concurrencyField(dir);
      expect(field.title).toBe('Concurrent requests');
      expect(field.description).not.toMatch(/each needs KV cache memory$/);
      expect(field.description).toMatch(
        /Ollama reserves KV cache for each, so more need a larger slice/,
      );
      expect(field.description).toMatch(
        /vLLM shares one KV cache among them, so this does not change where it fits/,
      );
      expect(field.description).toMatch(/Full-length sequences held at once/);
    },
  );
});
