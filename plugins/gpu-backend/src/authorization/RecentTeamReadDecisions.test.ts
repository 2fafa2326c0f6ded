import {
  BackstageCredentials,
  PermissionsRegistryService,
  PermissionsService,
} from '@backstage/backend-plugin-api';
import { mockCredentials } from '@backstage/backend-test-utils';
import {
  AuthorizeResult,
  PolicyDecision,
} from '@backstage/plugin-permission-common';
import { PolicyQueryUser } from '@backstage/plugin-permission-node';
import {
  gpuServiceReadPermission,
  Quote,
  QuoteWithoutTeamFigures,
  ServiceRequest,
} from '@gpu-platform/backstage-plugin-gpu-common';
import {
  GpuPlatformPolicy,
  gpuServicePermissionRules,
} from '@gpu-platform/backstage-plugin-gpu-node';
import { FitAndPriceQuotes, QuoteService } from '../services/QuoteService';
import { AuthorizedQuotes } from './AuthorizedQuotes';
import { GpuAccess } from './GpuAccess';
import {
  QUOTE_DECISION_TTL_MS,
  RecentTeamReadDecisions,
} from './RecentTeamReadDecisions';

/** Group memberships the policy sees, by user entity ref. */
const GROUPS: Record<string, string[]> = {
  'user:default/alice': ['ml-platform'],
  'user:default/carol': ['search'],
  'user:default/pat': ['platform-team'],
};

const policy = new GpuPlatformPolicy({
  platformGroups: ['group:default/platform-team'],
});

const registry = {
  getPermissionRuleset: () => ({
    getRuleByName: (name: string) =>
      Object.values(gpuServicePermissionRules).find(r => r.name === name),
  }),
} as unknown as PermissionsRegistryService;

function policyUser(
  credentials: BackstageCredentials,
): PolicyQueryUser | undefined {
  const principal = credentials.principal as {
    type: string;
    userEntityRef?: string;
  };
  if (principal.type !== 'user') return undefined;
  const ref = principal.userEntityRef!;
  const claims = [ref, ...(GROUPS[ref] ?? []).map(g => `group:default/${g}`)];
  return {
    identity: { type: 'user', userEntityRef: ref, ownershipEntityRefs: claims },
    info: { userEntityRef: ref, ownershipEntityRefs: claims },
    credentials: {} as PolicyQueryUser['credentials'],
    token: '',
    expiresInSeconds: 3600,
  } as unknown as PolicyQueryUser;
}

/**
 * The permission backend as the plugin reaches it: `authorizeConditional` asks GpuPlatformPolicy (or `override`),
 * each call counted, asynchronously like the HTTP round trip.
 */
function permissionBackend() {
  let override:
    | ((credentials: BackstageCredentials) => Promise<PolicyDecision>)
    | undefined;
  const authorizeConditional = jest.fn(
    async (
      requests: { permission: typeof gpuServiceReadPermission }[],
      { credentials }: { credentials: BackstageCredentials },
    ): Promise<PolicyDecision[]> => {
      await new Promise(r => setTimeout(r, 1));
      if (override) return [await override(credentials)];
      return Promise.all(
        requests.map(r =>
          policy.handle({ permission: r.permission }, policyUser(credentials)),
        ),
      );
    },
  );
  const permissions = {
    authorize: jest.fn(),
    authorizeConditional,
  } as unknown as PermissionsService;
  return {
    permissions,
    authorizeConditional,
    decideWith(
      decide:
        | ((credentials: BackstageCredentials) => Promise<PolicyDecision>)
        | undefined,
    ) {
      override = decide;
    },
  };
}

function setUp(options: { maxCallers?: number } = {}) {
  const backend = permissionBackend();
  let now = 1_000_000;
  const decisions = new RecentTeamReadDecisions({
    access: new GpuAccess(backend.permissions, registry),
    now: () => now,
    ...options,
  });
  return {
    ...backend,
    decisions,
    advance(ms: number) {
      now += ms;
    },
  };
}

const alice = mockCredentials.user('user:default/alice');
const carol = mockCredentials.user('user:default/carol');
const pat = mockCredentials.user('user:default/pat');

describe('RecentTeamReadDecisions', () => {
  it('asks the permission backend once for a burst of quotes by one user, and applies the decision to each team', async () => {
    const { decisions, authorizeConditional } = setUp();
    const concurrent = await Promise.all(
      Array.from({ length: 10 }, () =>
        decisions.canReadTeam(alice, 'ml-platform'),
      ),
    );
    expect(concurrent).toEqual(Array(10).fill(true));
    for (let i = 0; i < 5; i++) {
      expect(await decisions.canReadTeam(alice, 'ml-platform')).toBe(true);
      // Alice's conditional decision, evaluated here for another team: she is not a member.
      expect(await decisions.canReadTeam(alice, 'search')).toBe(false);
    }
    expect(authorizeConditional).toHaveBeenCalledTimes(1);
    expect(authorizeConditional.mock.calls[0][0]).toEqual([
      { permission: gpuServiceReadPermission },
    ]);
  });

  it("asks once per user, and never answers one user with another's decision", async () => {
    const { decisions, authorizeConditional } = setUp();
    // Carol first: her decision (search only) must not answer Alice's quote for ml-platform, nor Alice's hers.
    expect(await decisions.canReadTeam(carol, 'ml-platform')).toBe(false);
    expect(await decisions.canReadTeam(alice, 'ml-platform')).toBe(true);
    expect(await decisions.canReadTeam(carol, 'search')).toBe(true);
    expect(await decisions.canReadTeam(alice, 'search')).toBe(false);
    expect(authorizeConditional).toHaveBeenCalledTimes(2);
    expect(
      authorizeConditional.mock.calls.map(
        ([, { credentials }]) =>
          (credentials.principal as { userEntityRef: string }).userEntityRef,
      ),
    ).toEqual(['user:default/carol', 'user:default/alice']);

    // A platform user is allowed every team, by a decision of their own.
    expect(await decisions.canReadTeam(pat, 'search')).toBe(true);
    expect(authorizeConditional).toHaveBeenCalledTimes(3);
  });

  it('asks again for the same user with another token, through another service, and for a service', async () => {
    const { decisions, authorizeConditional } = setUp();
    const withExpiry = (expiresAt: Date) =>
      ({ ...alice, expiresAt } as BackstageCredentials);
    await decisions.canReadTeam(withExpiry(new Date(2_000_000)), 'ml-platform');
    await decisions.canReadTeam(withExpiry(new Date(2_000_000)), 'ml-platform');
    expect(authorizeConditional).toHaveBeenCalledTimes(1);
    // A new token (a new sign-in, maybe with new ownership claims) is a new decision.
    await decisions.canReadTeam(withExpiry(new Date(3_000_000)), 'ml-platform');
    expect(authorizeConditional).toHaveBeenCalledTimes(2);
    const viaScaffolder = mockCredentials.user('user:default/alice', {
      actor: { subject: 'plugin:scaffolder' },
    });
    await decisions.canReadTeam(viaScaffolder, 'ml-platform');
    expect(authorizeConditional).toHaveBeenCalledTimes(3);
    // A service principal: GpuPlatformPolicy denies it team-level data (no user).
    const service = mockCredentials.service('plugin:catalog');
    expect(await decisions.canReadTeam(service, 'ml-platform')).toBe(false);
    expect(await decisions.canReadTeam(service, 'ml-platform')).toBe(false);
    expect(authorizeConditional).toHaveBeenCalledTimes(4);
    // A service with access restrictions is not the unrestricted one.
    const restricted = {
      ...service,
      principal: {
        type: 'service',
        subject: 'plugin:catalog',
        accessRestrictions: { permissionNames: ['catalog.entity.read'] },
      },
    } as BackstageCredentials;
    await decisions.canReadTeam(restricted, 'ml-platform');
    expect(authorizeConditional).toHaveBeenCalledTimes(5);
  });

  it('asks again once the decision is older than the TTL, and the new decision counts', async () => {
    const { decisions, authorizeConditional, advance, decideWith } = setUp();
    expect(await decisions.canReadTeam(alice, 'ml-platform')).toBe(true);
    advance(QUOTE_DECISION_TTL_MS - 1);
    expect(await decisions.canReadTeam(alice, 'ml-platform')).toBe(true);
    expect(authorizeConditional).toHaveBeenCalledTimes(1);
    // Alice loses the permission: quotes show it within the TTL.
    decideWith(async () => ({ result: AuthorizeResult.DENY }));
    advance(1);
    expect(await decisions.canReadTeam(alice, 'ml-platform')).toBe(false);
    expect(authorizeConditional).toHaveBeenCalledTimes(2);
  });

  it('honours DENY and ALLOW for every team, and keeps them like a conditional decision', async () => {
    const { decisions, authorizeConditional, decideWith } = setUp();
    decideWith(async credentials =>
      (credentials.principal as { userEntityRef: string }).userEntityRef ===
      'user:default/alice'
        ? { result: AuthorizeResult.DENY }
        : { result: AuthorizeResult.ALLOW },
    );
    for (const team of ['ml-platform', 'search', 'ml-platform']) {
      expect(await decisions.canReadTeam(alice, team)).toBe(false);
      expect(await decisions.canReadTeam(carol, team)).toBe(true);
    }
    expect(authorizeConditional).toHaveBeenCalledTimes(2);
  });

  it('does not keep a failed request: the quotes waiting on it fail, the next one asks again', async () => {
    const { decisions, authorizeConditional, decideWith } = setUp();
    decideWith(async () => {
      throw new Error('permission backend unavailable');
    });
    const burst = await Promise.allSettled([
      decisions.canReadTeam(alice, 'ml-platform'),
      decisions.canReadTeam(alice, 'ml-platform'),
    ]);
    expect(burst.map(r => r.status)).toEqual(['rejected', 'rejected']);
    expect(authorizeConditional).toHaveBeenCalledTimes(1);
    await expect(decisions.canReadTeam(alice, 'ml-platform')).rejects.toThrow(
      'permission backend unavailable',
    );
    expect(authorizeConditional).toHaveBeenCalledTimes(2);
    decideWith(undefined);
    expect(await decisions.canReadTeam(alice, 'ml-platform')).toBe(true);
    expect(await decisions.canReadTeam(alice, 'ml-platform')).toBe(true);
    expect(authorizeConditional).toHaveBeenCalledTimes(3);
  });

  it('asks on every quote for a caller without a principal', async () => {
    const { decisions, authorizeConditional } = setUp();
    expect(await decisions.canReadTeam(mockCredentials.none(), 'search')).toBe(
      false,
    );
    expect(await decisions.canReadTeam(mockCredentials.none(), 'search')).toBe(
      false,
    );
    expect(authorizeConditional).toHaveBeenCalledTimes(2);
  });

  it('keeps at most maxCallers decisions, the oldest evicted first', async () => {
    const { decisions, authorizeConditional } = setUp({ maxCallers: 2 });
    await decisions.canReadTeam(alice, 'ml-platform');
    await decisions.canReadTeam(carol, 'ml-platform');
    await decisions.canReadTeam(pat, 'ml-platform'); // evicts alice's
    await decisions.canReadTeam(carol, 'ml-platform');
    await decisions.canReadTeam(pat, 'ml-platform');
    expect(authorizeConditional).toHaveBeenCalledTimes(3);
    await decisions.canReadTeam(alice, 'ml-platform');
    expect(authorizeConditional).toHaveBeenCalledTimes(4);
  });
});

describe('AuthorizedQuotes', () => {
  const request = { team: 'ml-platform' } as ServiceRequest;

  it("gives the team's figures to members and fit and price to others, one permission request per caller", async () => {
    const { decisions, authorizeConditional } = setUp();
    const full = { kind: 'full' } as unknown as Quote;
    const fitAndPrice = {
      kind: 'fit-and-price',
    } as unknown as QuoteWithoutTeamFigures;
    const quotes = {
      quote: jest.fn(async () => full),
      quoteFitAndPrice: jest.fn(async () => fitAndPrice),
    } as unknown as QuoteService & FitAndPriceQuotes;
    const authorized = new AuthorizedQuotes({ quotes, decisions });
    for (let i = 0; i < 3; i++) {
      expect(await authorized.quote(alice, request)).toBe(full);
      expect(await authorized.quote(carol, request)).toBe(fitAndPrice);
    }
    expect(authorizeConditional).toHaveBeenCalledTimes(2);
  });
});
