import {
  BackstageCredentials,
  PermissionsRegistryService,
  PermissionsService,
} from '@backstage/backend-plugin-api';
import { NotAllowedError } from '@backstage/errors';
import {
  AuthorizeResult,
  BasicPermission,
  PermissionCriteria,
  PolicyDecision,
  ResourcePermission,
} from '@backstage/plugin-permission-common';
import {
  ConditionTransformer,
  createConditionAuthorizer,
  createConditionTransformer,
} from '@backstage/plugin-permission-node';
import {
  GpuServiceQuery,
  GpuServiceResource,
  gpuServiceResourceRef,
} from '@gpu-platform/backstage-plugin-gpu-node';

/**
 * Which services a caller may see: none, or some: those matching `visibleTo` (a filter on team, environment, pool
 * and tier, as the store takes it), every service when it is absent.
 */
export type ServiceVisibility =
  | { kind: 'none' }
  | { kind: 'some'; visibleTo?: PermissionCriteria<GpuServiceQuery> };

type GpuServicePermission = ResourcePermission<'gpu-service'>;

/**
 * The permission checks of the gpu plugin, in one place: basic permissions, `gpu-service` resource permissions
 * decided on a service (or on the service being requested) with the plugin's own rules, and the filter a
 * conditional decision makes for listing. Conditional decisions are applied here, like the catalog applies its own,
 * so one policy round trip decides a whole list.
 */
export class GpuAccess {
  private readonly isAllowed: (
    decision: PolicyDecision,
    resource: GpuServiceResource | undefined,
  ) => boolean;
  private readonly toQuery: ConditionTransformer<GpuServiceQuery>;

  constructor(
    private readonly permissions: PermissionsService,
    permissionsRegistry: PermissionsRegistryService,
  ) {
    const ruleset = permissionsRegistry.getPermissionRuleset(
      gpuServiceResourceRef,
    );
    this.isAllowed = createConditionAuthorizer(ruleset);
    this.toQuery = createConditionTransformer(ruleset);
  }

  /** Whether the caller holds a basic permission. */
  async can(
    credentials: BackstageCredentials,
    permission: BasicPermission,
  ): Promise<boolean> {
    const [decision] = await this.permissions.authorize([{ permission }], {
      credentials,
    });
    return decision.result === AuthorizeResult.ALLOW;
  }

  /** Throws `NotAllowedError` unless the caller holds a basic permission. */
  async require(
    credentials: BackstageCredentials,
    permission: BasicPermission,
    what: string,
  ): Promise<void> {
    if (!(await this.can(credentials, permission))) {
      throw new NotAllowedError(`You are not allowed to ${what}`);
    }
  }

  /** Whether the caller holds a `gpu-service` permission on one service (or on the service being requested). */
  async canOnService(
    credentials: BackstageCredentials,
    permission: GpuServicePermission,
    resource: GpuServiceResource,
  ): Promise<boolean> {
    const [decision] = await this.permissions.authorizeConditional(
      [{ permission }],
      { credentials },
    );
    return this.isAllowed(decision, resource);
  }

  /** Throws `NotAllowedError` unless the caller holds a `gpu-service` permission on the resource. */
  async requireOnService(
    credentials: BackstageCredentials,
    permission: GpuServicePermission,
    resource: GpuServiceResource,
    what: string,
  ): Promise<void> {
    if (!(await this.canOnService(credentials, permission, resource))) {
      throw new NotAllowedError(`You are not allowed to ${what}`);
    }
  }

  /** Which services the caller holds a `gpu-service` permission on, as a filter for the store. */
  async visibility(
    credentials: BackstageCredentials,
    permission: GpuServicePermission,
  ): Promise<ServiceVisibility> {
    const [decision] = await this.permissions.authorizeConditional(
      [{ permission }],
      { credentials },
    );
    if (decision.result === AuthorizeResult.CONDITIONAL) {
      return { kind: 'some', visibleTo: this.toQuery(decision.conditions) };
    }
    return decision.result === AuthorizeResult.ALLOW
      ? { kind: 'some' }
      : { kind: 'none' };
  }

  /** Of the given teams, those whose team-level data (costs, quota use, audit) the caller may read. */
  async teamsVisible(
    credentials: BackstageCredentials,
    permission: GpuServicePermission,
    teams: string[],
  ): Promise<string[]> {
    const decision = await this.decision(credentials, permission);
    return teams.filter(team => this.allowsTeam(decision, team));
  }

  /**
   * The policy's decision on a `gpu-service` permission for the caller, conditions unresolved (one round trip to the
   * permission backend): apply it to a team with {@link GpuAccess.allowsTeam}.
   */
  async decision(
    credentials: BackstageCredentials,
    permission: GpuServicePermission,
  ): Promise<PolicyDecision> {
    const [decision] = await this.permissions.authorizeConditional(
      [{ permission }],
      { credentials },
    );
    return decision;
  }

  /** Whether a decision of {@link GpuAccess.decision} allows team-level data of the team (evaluated here). */
  allowsTeam(decision: PolicyDecision, team: string): boolean {
    return this.isAllowed(decision, { team });
  }
}
