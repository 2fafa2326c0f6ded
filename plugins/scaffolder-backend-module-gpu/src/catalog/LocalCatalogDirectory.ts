import { RootConfigService } from '@backstage/backend-plugin-api';
import {
  Entity,
  parseEntityRef,
  stringifyEntityRef,
} from '@backstage/catalog-model';
import { ConflictError, NotAllowedError } from '@backstage/errors';
import { locationSpecToMetadataName } from '@backstage/plugin-catalog-node';
import { ownerGroupOf } from '@gpu-platform/backstage-plugin-gpu-common';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import yaml from 'yaml';

const CONFIG_KEY = 'scaffolder.gpu.catalogDirectory';

/**
 * A directory of catalog-info files that the catalog reads through a `file` location with a glob (configured in
 * `catalog.locations`, e.g. `target: ../../local-catalog/*.yaml`). It stands in for a Git repository in setups
 * without a Git provider: writing a file there and refreshing that location registers the entity; removing the
 * file unregisters it.
 *
 * @public
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

  /**
   * Where the catalog-info of an entity is kept: `<directory>/<kind>-<namespace>-<name>.yaml`, in lower case as the
   * catalog compares refs, so one entity always has one file.
   */
  fileFor(ref: { kind: string; namespace: string; name: string }): string {
    const lower = (s: string) => s.toLocaleLowerCase('en-US');
    return path.join(
      this.directory,
      `${lower(ref.kind)}-${lower(ref.namespace)}-${lower(ref.name)}.yaml`,
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

  /**
   * Writes an entity's catalog-info file (`fileFor` its ref), serialised with the `yaml` library, and answers its
   * path. A file already there is only replaced when it holds the same entity owned by `ownerGroup` (a team
   * re-registering its own component); otherwise nothing is written and a `NotAllowedError` names its owner. This
   * holds even when the catalog does not show the entity to the caller: the check reads the file itself. A new file
   * is created exclusively, so two tasks racing for one name cannot both win.
   */
  async writeEntity(entity: Entity, ownerGroup: string): Promise<string> {
    const ref = {
      kind: entity.kind,
      namespace: entity.metadata.namespace ?? 'default',
      name: entity.metadata.name,
    };
    const entityRef = stringifyEntityRef(ref);
    const file = this.fileFor(ref);
    await fs.mkdir(this.directory, { recursive: true });
    // Not *.yaml: the catalog location's glob must never read a half-written file.
    const temporary = path.join(
      this.directory,
      `.${path.basename(file)}.${randomUUID()}.tmp`,
    );
    await fs.writeFile(temporary, yaml.stringify(entity), {
      encoding: 'utf8',
      flag: 'wx',
    });
    try {
      for (;;) {
        if (await this.assertReplaceable(file, entityRef, ownerGroup)) {
          await fs.rename(temporary, file);
          return file;
        }
        try {
          await fs.link(temporary, file);
          return file;
        } catch (error) {
          // Created meanwhile by another task: check it like any existing file.
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        }
      }
    } finally {
      await fs.rm(temporary, { force: true });
    }
  }

  /**
   * Checks, without writing, that the file of `entityRef` could be written for `ownerGroup` (it is absent, or holds
   * that entity owned by that group); `NotAllowedError` naming the owner otherwise (`ConflictError` when it holds
   * another entity). Actions call it before anything
   * is created, so that the write at the end cannot be refused after the fact.
   */
  async assertWritable(entityRef: string, ownerGroup: string): Promise<void> {
    const ref = parseEntityRef(entityRef);
    await this.assertReplaceable(
      this.fileFor(ref),
      stringifyEntityRef(ref),
      ownerGroup,
    );
  }

  /** Whether `file` exists (then it may be replaced); throws when it holds another entity or another owner's. */
  private async assertReplaceable(
    file: string,
    entityRef: string,
    ownerGroup: string,
  ): Promise<boolean> {
    let text: string;
    try {
      text = await fs.readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
    let existing: Entity | undefined;
    try {
      existing = yaml.parse(text);
    } catch {
      existing = undefined;
    }
    const existingRef =
      typeof existing?.kind === 'string' &&
      typeof existing?.metadata?.name === 'string' &&
      typeof (existing.metadata.namespace ?? '') === 'string'
        ? stringifyEntityRef(existing)
        : undefined;
    const owner = existing?.metadata ? ownerGroupOf(existing) : undefined;
    // The message names the file, never the server's directory.
    if (existingRef === entityRef && owner !== ownerGroup) {
      throw new NotAllowedError(
        `${entityRef} is owned by ${owner ?? 'nobody'} (file ${path.basename(
          file,
        )} of the local catalog directory); it cannot be registered or bound for ${ownerGroup}: choose another name`,
      );
    }
    if (existingRef !== entityRef) {
      throw new ConflictError(
        `File ${path.basename(
          file,
        )} of the local catalog directory already defines ${
          existingRef ?? 'something that is not an entity'
        }, owned by ${
          owner ?? 'nobody'
        }; it cannot be replaced by ${entityRef} for ${ownerGroup}: choose another name`,
      );
    }
    return true;
  }

  /** Removes the file; already gone is fine. */
  async remove(file: string): Promise<void> {
    await fs.rm(file, { force: true });
  }
}
