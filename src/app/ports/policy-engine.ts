/**
 * The input document of an external authorization decision (decisions "Identity"):
 * `{input: {principal: {id, type, tenant_id, roles}, permission, resource_type, action,
 * resource_id, route}}`.
 */
export interface PolicyQuery {
  readonly principal: {
    readonly id: string;
    readonly type: string;
    readonly tenant_id: string | null;
    readonly roles: readonly string[];
  };
  readonly permission: string;
  readonly resource_type: string;
  readonly action: string;
  readonly resource_id: string | null;
  /** `METHOD /path` of a REST route, `mcp:<tool>` of a tool, or null. */
  readonly route: string | null;
}

/**
 * An external policy engine asked after role-based authorization allowed (`auth.opa`): both must
 * allow. Answers false when the engine is unreachable, slow or answers anything but `result: true`.
 */
export interface PolicyEngine {
  allows(query: PolicyQuery): Promise<boolean>;
}
