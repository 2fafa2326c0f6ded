import {
  BackstageCredentials,
  LoggerService,
} from '@backstage/backend-plugin-api';
import { ActionsRegistryService } from '@backstage/backend-plugin-api/alpha';
import { Config, readDurationFromConfig } from '@backstage/config';
import { ServiceUnavailableError } from '@backstage/errors';
import { durationToMilliseconds } from '@backstage/types';
import { messagesWithoutAddresses } from '../errors/messagesWithoutAddresses';
import { toPublicError } from '../errors/publicError';

/** At most `limit` action calls per caller in each window of `windowMs`. */
export interface ActionRateLimit {
  windowMs: number;
  limit: number;
}

/**
 * The gpu actions' rate limit: the REST API's (`backend.rateLimit.plugin.gpu`, applied per client address by
 * Backstage's http router), counted per caller instead, since every MCP call reaches the plugin from the MCP
 * backend's address. Undefined, as for the REST API, when `backend.rateLimit` is absent, switched off globally
 * without a gpu entry, or has no gpu entry. Backstage's defaults fill what the entry leaves out: a 1-minute window,
 * 5 calls (express-rate-limit's).
 */
export function readActionRateLimit(
  config: Config,
): ActionRateLimit | undefined {
  const rateLimit = config.getOptional('backend.rateLimit');
  if (rateLimit === undefined || rateLimit === false) return undefined;
  const gpu = config.getOptionalConfig('backend.rateLimit.plugin.gpu');
  if (!gpu) {
    if (rateLimit === true) return { windowMs: 60_000, limit: 5 };
    const global = config.getOptionalBoolean('backend.rateLimit.global');
    if (global === false) return undefined;
    return limitOf(config.getConfig('backend.rateLimit'));
  }
  return limitOf(gpu);
}

function limitOf(config: Config): ActionRateLimit {
  return {
    windowMs: config.has('window')
      ? durationToMilliseconds(
          readDurationFromConfig(config, { key: 'window' }),
        )
      : 60_000,
    limit: config.getOptionalNumber('incomingRequestLimit') ?? 5,
  };
}

/** Whom a call counts against: the user, or the service acting as itself (exempt: another backend of this app). */
function callerKey(credentials: BackstageCredentials): string | undefined {
  const principal = credentials.principal as {
    type?: string;
    userEntityRef?: string;
  };
  if (principal.type === 'user' && principal.userEntityRef) {
    return principal.userEntityRef;
  }
  if (principal.type === 'service') return undefined;
  return 'none';
}

/** Fixed windows of calls per caller; windows that ended are dropped as the map grows. */
class CallCounter {
  private readonly windows = new Map<
    string,
    { start: number; calls: number }
  >();

  constructor(
    private readonly rateLimit: ActionRateLimit,
    private readonly now: () => number,
  ) {}

  /** Counts a call; the seconds until the caller's window ends when it is over the limit. */
  take(key: string): number | undefined {
    const now = this.now();
    const { windowMs, limit } = this.rateLimit;
    let window = this.windows.get(key);
    if (!window || now - window.start >= windowMs) {
      if (this.windows.size >= 10_000) this.dropEnded(now);
      window = { start: now, calls: 0 };
      this.windows.set(key, window);
    }
    window.calls += 1;
    if (window.calls <= limit) return undefined;
    return Math.max(1, Math.ceil((window.start + windowMs - now) / 1000));
  }

  private dropEnded(now: number): void {
    for (const [key, window] of this.windows) {
      if (now - window.start >= this.rateLimit.windowMs)
        this.windows.delete(key);
    }
  }
}

/**
 * The registry with every action guarded: calls past the rate limit of their caller are refused before the action
 * runs, an action's error reaches the caller as `toPublicError` makes it (503 while the database is unavailable,
 * no internal addresses), and its output's messages name no internal address (`messagesWithoutAddresses`). A refusal for the rate limit is a `ServiceUnavailableError` (the MCP actions backend turns
 * only Backstage's known errors into tool results an agent reads) with HTTP status 429 for direct callers of the
 * actions endpoint.
 */
export function withGuards(
  registry: ActionsRegistryService,
  options: {
    logger: LoggerService;
    rateLimit?: ActionRateLimit;
    now?: () => number;
  },
): ActionsRegistryService {
  const { logger, rateLimit } = options;
  const counter = rateLimit
    ? new CallCounter(rateLimit, options.now ?? Date.now)
    : undefined;
  return {
    register: action =>
      registry.register({
        ...action,
        action: async context => {
          const key = counter && callerKey(context.credentials);
          const waitSeconds =
            key !== undefined ? counter!.take(key) : undefined;
          if (waitSeconds !== undefined) {
            throw Object.assign(
              new ServiceUnavailableError(
                `Too many gpu tool calls: at most ${rateLimit!.limit} every ${
                  rateLimit!.windowMs / 1000
                } s per caller; try again in ${waitSeconds} s`,
              ),
              { statusCode: 429 },
            );
          }
          try {
            const result = await action.action(context);
            return (
              result && {
                ...result,
                output: messagesWithoutAddresses(result.output),
              }
            );
          } catch (error) {
            throw toPublicError(error, logger).error;
          }
        },
      }),
  };
}
