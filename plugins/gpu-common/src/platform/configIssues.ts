import { GpuDomainError } from '../errors';

/** A key path into the config, e.g. `['gpu', 'pools', 2, 'pricePerNodeHour']`. */
export type ConfigPath = ReadonlyArray<PropertyKey>;

/**
 * Formats a config key path the way a reader finds it in YAML: `gpu.pools[2].pricePerNodeHour`, with keys that
 * contain dots or slashes quoted, e.g. `gpu.models["llama-3.1-8b"]`.
 */
export function formatConfigPath(path: ConfigPath): string {
  return path
    .map((key, index) => {
      if (typeof key === 'number') {
        return `[${key}]`;
      }
      const name = String(key);
      if (/^[A-Za-z0-9_-]+$/.test(name)) {
        return index === 0 ? name : `.${name}`;
      }
      return `[${JSON.stringify(name)}]`;
    })
    .join('');
}

/** Collects every problem of a config, so one error names them all. */
export class ConfigIssues {
  private readonly messages: string[] = [];

  add(path: ConfigPath, message: string): void {
    this.messages.push(`${formatConfigPath(path)}: ${message}`);
  }

  get count(): number {
    return this.messages.length;
  }

  /** Throws a `GpuDomainError` with code `INVALID_CONFIG` listing every problem, if there is any. */
  throwIfAny(): void {
    if (this.messages.length === 0) {
      return;
    }
    const plural = this.messages.length > 1 ? 's' : '';
    throw new GpuDomainError(
      'INVALID_CONFIG',
      `Invalid gpu config, ${
        this.messages.length
      } problem${plural}: ${this.messages.join('; ')}`,
    );
  }
}
