import { type Decision, decide, type HeldRole } from "../../domain/auth/decide.js";
import { coversSomeId, type ParsedPermission, parsePermission } from "../../domain/auth/permissions.js";
import { BUILTIN_ROLES, isBuiltinRole, parseGrants } from "../../domain/auth/roles.js";
import { parseScope } from "../../domain/auth/scope.js";
import { andThen, type MaybePromise } from "../../domain/maybe-promise.js";
import type { Principal } from "../context.js";
import type { Clock } from "../ports/clock.js";
import type { Logger } from "../ports/logger.js";
import type { PolicyEngine } from "../ports/policy-engine.js";
import type { StoreRepositories } from "../ports/store-repositories.js";

/** A `role_assignments` entry of the configuration file. */
export interface StaticAssignment {
  readonly principal: string;
  readonly role: string;
  readonly scope: string;
}

export interface AuthorizerDeps {
  repositories: Pick<StoreRepositories, "roles" | "roleAssignments">;
  staticAssignments: readonly StaticAssignment[];
  /** `auth.opa` when enabled: asked after the roles allowed. */
  policyEngine: PolicyEngine | null;
  clock: Clock;
  logger: Logger;
}

export interface AuthorizeOptions {
  /** Whether a tenant-scoped grant may pass (spec 2 §5: tenant-aware routes and tools). */
  tenantAware: boolean;
  /** `METHOD /path` or `mcp:<tool>`, for the policy engine's input. */
  route?: string | null;
  /** The id the request names (a path parameter, a tool's `mcp_server`), for the policy engine. */
  resourceId?: string | null;
  /**
   * A grant for some ids only (`tool:invoke:math`) passes too, answered `perResource`: the caller
   * is then checked again for each resource it acts on.
   */
  forSomeId?: boolean;
}

/**
 * How long stored roles and assignments are reused before they are read again. Changes made on this
 * replica apply at once (`invalidate`); those of another replica within this time.
 */
const CACHE_MS = 5_000;

/**
 * Each list of permissions asked about, parsed (null when one is malformed). The lists are nearly
 * always the catalog's, the same array on every request (the front door's stateless calls ask twice
 * per call): parsing is pure, so each list is parsed once while it is in use.
 */
const PARSED_LISTS = new WeakMap<readonly string[], readonly ParsedPermission[] | null>();

function parsedPermissions(permissions: readonly string[]): readonly ParsedPermission[] | null {
  let parsed = PARSED_LISTS.get(permissions);
  if (parsed === undefined) {
    const each = permissions.map(parsePermission);
    parsed = each.some((permission) => permission === null) ? null : (each as ParsedPermission[]);
    PARSED_LISTS.set(permissions, parsed);
  }
  return parsed;
}

/**
 * Role-based authorization: the roles a principal holds (static assignments, assignments made
 * through REST, roles declared with the identity), their grants (built-in or custom), the decision,
 * then the external policy engine when one is configured. Deny by default.
 */
export class Authorizer {
  private readonly assignments = new Map<
    string,
    { at: number; roles: Promise<{ role: string; scope: string }[]> }
  >();
  private customRoles: { at: number; roles: Promise<Map<string, readonly string[]>> } | null = null;
  /**
   * The roles a principal holds, parsed, while the reads they come from are the cached ones: every
   * request asks, and parsing scopes and grants anew each time costs more than the decision.
   */
  private readonly held = new Map<string, HeldRolesEntry>();

  constructor(private readonly deps: AuthorizerDeps) {}

  /** The `role_assignments` of the configuration (never stored). */
  get staticAssignments(): readonly StaticAssignment[] {
    return this.deps.staticAssignments;
  }

  /** Forgets cached roles and assignments (after a change through REST). */
  invalidate(): void {
    this.assignments.clear();
    this.customRoles = null;
    this.held.clear();
  }

  /**
   * Whether the principal's roles grant every permission, then whether the policy engine agrees.
   * At once when the roles are in memory and no policy engine is configured, else a promise.
   */
  decide(
    principal: Principal,
    permissions: readonly string[],
    options: AuthorizeOptions,
  ): MaybePromise<Decision> {
    const required = parsedPermissions(permissions);
    if (required === null) return denied();
    return andThen(this.heldRoles(principal), (held) => {
      let decision = decide(held, required, options.tenantAware);
      if (!decision.allowed && options.forSomeId) {
        const some = decide(held, required, options.tenantAware, coversSomeId);
        if (some.allowed) decision = { ...some, perResource: true };
      }
      if (!decision.allowed || !this.deps.policyEngine) return decision;
      return this.askPolicyEngine(
        this.deps.policyEngine,
        principal,
        held,
        permissions,
        required,
        options,
        decision,
      );
    });
  }

  /**
   * The first of `permissions` the principal's roles do not grant on their own (the policy engine is
   * not asked), or undefined when they grant each: what a refusal names.
   */
  firstUngranted(
    principal: Principal,
    permissions: readonly string[],
    tenantAware: boolean,
  ): MaybePromise<string | undefined> {
    return andThen(this.heldRoles(principal), (held) =>
      permissions.find((name) => {
        const permission = parsePermission(name);
        return permission === null || !decide(held, [permission], tenantAware).allowed;
      }),
    );
  }

  /** Whether the principal holds the admin role at global scope. */
  isAdmin(principal: Principal): MaybePromise<boolean> {
    return andThen(this.heldRoles(principal), (held) =>
      held.some((role) => role.role === "admin" && role.scope.kind === "global"),
    );
  }

  /**
   * The roles a principal holds, each with its scope and grants; unknown roles grant nothing.
   * Answered without a promise once the reads they come from have settled, while those are fresh.
   */
  heldRoles(principal: Principal): MaybePromise<readonly HeldRole[]> {
    const assigned = this.assignedRoles(principal.id);
    const custom = this.customRoleGrants();
    const key = `${principal.id}\u0000${principal.roles.join("\u0000")}`;
    const cached = this.held.get(key);
    if (cached && cached.assigned === assigned && cached.custom === custom)
      return cached.settled ?? cached.roles;
    const entry: HeldRolesEntry = {
      assigned,
      custom,
      roles: Promise.all([assigned, custom]).then(([a, c]) => {
        const roles = resolveHeldRoles(principal.roles, a, c);
        entry.settled = roles;
        return roles;
      }),
    };
    if (this.held.size >= MAX_HELD_ENTRIES) this.held.clear();
    this.held.set(key, entry);
    return entry.roles;
  }

  /**
   * The policy engine's word on each permission the roles granted (`names` as the caller wrote them,
   * `required` parsed); the first refusal denies.
   */
  private async askPolicyEngine(
    engine: PolicyEngine,
    principal: Principal,
    held: readonly HeldRole[],
    names: readonly string[],
    required: readonly ParsedPermission[],
    options: AuthorizeOptions,
    decision: Decision,
  ): Promise<Decision> {
    // Every role the principal holds, declared with the identity or assigned, once each.
    const roles = [...new Set(held.map((role) => role.role))];
    for (const [index, permission] of required.entries()) {
      const allowed = await engine.allows({
        principal: { id: principal.id, type: principal.type, tenant_id: principal.tenant_id, roles },
        permission: names[index] as string,
        resource_type: permission.resource,
        action: permission.action,
        resource_id: permission.id ?? options.resourceId ?? null,
        route: options.route ?? null,
      });
      if (!allowed) return denied();
    }
    return decision;
  }

  private assignedRoles(principalId: string): Promise<{ role: string; scope: string }[]> {
    const now = this.deps.clock.monotonic();
    const cached = this.assignments.get(principalId);
    if (cached && now - cached.at < CACHE_MS) return cached.roles;
    const statics = this.deps.staticAssignments
      .filter((assignment) => assignment.principal === principalId)
      .map(({ role, scope }) => ({ role, scope }));
    const roles = this.deps.repositories.roleAssignments.listByPrincipal(principalId).then(
      (stored) => [...statics, ...stored.map(({ role_name, scope }) => ({ role: role_name, scope }))],
      (error: unknown) => {
        this.assignments.delete(principalId);
        this.deps.logger.error(
          { err: String(error) },
          "role assignments could not be read; only static ones apply",
        );
        return statics;
      },
    );
    this.assignments.set(principalId, { at: now, roles });
    return roles;
  }

  private customRoleGrants(): Promise<Map<string, readonly string[]>> {
    const now = this.deps.clock.monotonic();
    if (this.customRoles && now - this.customRoles.at < CACHE_MS) return this.customRoles.roles;
    const roles = this.deps.repositories.roles.list().then(
      (list) => new Map(list.map((role) => [role.role_name, role.permissions])),
      (error: unknown) => {
        this.customRoles = null;
        this.deps.logger.error({ err: String(error) }, "custom roles could not be read; they grant nothing");
        return new Map<string, readonly string[]>();
      },
    );
    this.customRoles = { at: now, roles };
    return roles;
  }
}

/** Principals whose parsed roles are kept; past it the cache starts again (it refills as asked). */
const MAX_HELD_ENTRIES = 10_000;

interface HeldRolesEntry {
  assigned: Promise<{ role: string; scope: string }[]>;
  custom: Promise<Map<string, readonly string[]>>;
  roles: Promise<readonly HeldRole[]>;
  /** The roles, once `roles` has settled. */
  settled?: readonly HeldRole[];
}

/** The roles declared with the identity and those assigned, with their scopes and grants parsed. */
function resolveHeldRoles(
  declaredRoles: readonly string[],
  assigned: readonly { role: string; scope: string }[],
  custom: ReadonlyMap<string, readonly string[]>,
): HeldRole[] {
  const declared = declaredRoles.map((role) => ({ role, scope: "global" }));
  const held: HeldRole[] = [];
  for (const { role, scope } of [...declared, ...assigned]) {
    const parsedScope = parseScope(scope);
    const permissions = isBuiltinRole(role) ? BUILTIN_ROLES[role]?.permissions : custom.get(role);
    if (!parsedScope || !permissions) continue;
    held.push({ role, scope: parsedScope, grants: parseGrants(permissions) });
  }
  return held;
}

function denied(): Decision {
  return { allowed: false, granted_by_role: null, tenant: null };
}
