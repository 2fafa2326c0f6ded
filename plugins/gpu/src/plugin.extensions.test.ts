import { gpuPlugin } from './plugin';

// The extension ids the README's installation section lists, for apps that configure them under app.extensions.
const documentedIds = [
  'api:gpu',
  'page:gpu',
  'entity-card:gpu/service',
  'entity-card:gpu/summary',
  'entity-content:gpu/service',
  'scaffolder-form-field:gpu/tier-picker',
  'scaffolder-form-field:gpu/team-picker',
  'scaffolder-form-field:gpu/quote-summary',
  'scaffolder-form-field:gpu/dtype-picker',
] as const;

describe('gpuPlugin extensions', () => {
  it.each(documentedIds)('provides %s', id => {
    expect(gpuPlugin.getExtension(id)).toBeDefined();
  });
});
