import { RootConfigService } from '@backstage/backend-plugin-api';
import { locationSpecToMetadataName } from '@backstage/plugin-catalog-node';
import fs from 'node:fs/promises';
import path from 'node:path';

const CONFIG_KEY = 'scaffolder.gpu.catalogDirectory';

/**
 * A directory of catalog-info files that the catalog reads through a `file` location with a glob (configured in
 * `catalog.locations`, e.g. `target: ../../local-catalog/*.yaml`). It stands in for a Git repository in setups
 * without a Git provider: writing a file there and refreshing that location registers the entity; removing the
 * file unregisters it.
 */
export class LocalCatalogDirectory {
  /**
   * Reads `scaffolder.gpu.catalogDirectory` (relative to the backend's working directory, like file locations);
   * undefined when it is not set. Throws when no `file` location of `catalog.locations` reads that directory.
   */
  static fromConfig(
    config: RootConfigService,
  ): LocalCatalogDirectory | undefined {
    const configured = config.getOptionalString(CONFIG_KEY);
    if (!configured) {
      return undefined;
    }
    const directory = path.resolve(configured);
    const location = (config.getOptionalConfigArray('catalog.locations') ?? [])
      .filter(l => l.getString('type') === 'file')
      .map(l => path.resolve(l.getString('target')))
      .find(
        target =>
          path.dirname(target) === directory &&
          /\*/.test(path.basename(target)),
      );
    if (!location) {
      throw new Error(
        `${CONFIG_KEY} is ${directory}, but no catalog.locations entry of type file reads it; ` +
          `add one with target ${path.join(
            configured,
            '*.yaml',
          )} and rules allowing Component`,
      );
    }
    return new LocalCatalogDirectory(directory, location);
  }

  constructor(
    /** Absolute path of the directory. */
    readonly directory: string,
    /** Absolute glob of the catalog location that reads it. */
    readonly locationTarget: string,
  ) {}

  /** Ref of the Location entity the catalog made of the configured location (what to refresh). */
  get locationEntityRef(): string {
    return `location:default/${locationSpecToMetadataName({
      type: 'file',
      target: this.locationTarget,
    })}`;
  }

  /** Where the catalog-info of an entity is kept: `<directory>/<kind>-<namespace>-<name>.yaml`. */
  fileFor(ref: { kind: string; namespace: string; name: string }): string {
    return path.join(
      this.directory,
      `${ref.kind.toLocaleLowerCase('en-US')}-${ref.namespace}-${
        ref.name
      }.yaml`,
    );
  }

  /** Whether a `backstage.io/managed-by-location` value (`file:<path>`) points into this directory. */
  owns(managedByLocation: string | undefined): string | undefined {
    if (!managedByLocation?.startsWith('file:')) {
      return undefined;
    }
    const file = path.resolve(managedByLocation.slice('file:'.length));
    return path.dirname(file) === this.directory ? file : undefined;
  }

  async write(file: string, content: string): Promise<void> {
    await fs.mkdir(this.directory, { recursive: true });
    await fs.writeFile(file, content, 'utf8');
  }

  /** Removes the file; already gone is fine. */
  async remove(file: string): Promise<void> {
    await fs.rm(file, { force: true });
  }
}
