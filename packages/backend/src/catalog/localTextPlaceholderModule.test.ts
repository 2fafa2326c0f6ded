import { createMockDirectory } from '@backstage/backend-test-utils';
import { PlaceholderResolverParams } from '@backstage/plugin-catalog-node';
import { textPlaceholderResolver } from './localTextPlaceholderModule';

describe('textPlaceholderResolver', () => {
  const dir = createMockDirectory();

  function params(
    value: unknown,
    baseUrl: string,
    read = jest.fn(async (_url: string) => Buffer.from('from the url')),
  ) {
    const emit = jest.fn();
    return {
      params: {
        key: 'text',
        value,
        baseUrl,
        read,
        resolveUrl: (url: string, base: string) => new URL(url, base).href,
        emit,
      } as PlaceholderResolverParams,
      read,
      emit,
    };
  }

  beforeEach(() => {
    dir.setContent({
      'repo/examples/apis.yaml': 'kind: API',
      'repo/plugins/x/src/schema/openapi.yaml': 'openapi: 3.0.3\n',
      'outside.txt': 'secret',
    });
  });

  it('reads a file relative to the entity of a file location', async () => {
    const { params: p, read } = params(
      '../plugins/x/src/schema/openapi.yaml',
      dir.resolve('repo/examples/apis.yaml'),
    );
    await expect(textPlaceholderResolver(p, dir.resolve('repo'))).resolves.toBe(
      'openapi: 3.0.3\n',
    );
    expect(read).not.toHaveBeenCalled();
  });

  it('refuses files outside the repository root, and names a missing one', async () => {
    await expect(
      textPlaceholderResolver(
        params('../../outside.txt', dir.resolve('repo/examples/apis.yaml'))
          .params,
        dir.resolve('repo'),
      ),
    ).rejects.toThrow(/may only read files inside/);
    await expect(
      textPlaceholderResolver(
        params('./missing.yaml', dir.resolve('repo/examples/apis.yaml')).params,
        dir.resolve('repo'),
      ),
    ).rejects.toThrow(/could not read \.\/missing\.yaml/);
  });

  it('reads URLs through the UrlReader as the catalog does', async () => {
    const {
      params: p,
      read,
      emit,
    } = params('./openapi.yaml', 'https://example.com/repo/catalog-info.yaml');
    await expect(textPlaceholderResolver(p)).resolves.toBe('from the url');
    expect(read).toHaveBeenCalledWith('https://example.com/repo/openapi.yaml');
    expect(emit).toHaveBeenCalledWith(
      expect.objectContaining({
        type: 'refresh',
        key: 'url:https://example.com/repo/openapi.yaml',
      }),
    );
  });
});
