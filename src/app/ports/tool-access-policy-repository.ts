export type ToolAccessScope = "provider" | "group" | "member";

/** A tool-access policy set through REST. `updated_at` is epoch seconds, fractional. */
export interface ToolAccessPolicyRecord {
  readonly scope: ToolAccessScope;
  readonly target_id: string;
  /** fnmatch globs, in the order given. */
  readonly allow_list: readonly string[];
  readonly deny_list: readonly string[];
  readonly updated_at: number;
  readonly updated_by: string;
}

/**
 * Tool-access policies (the REST form), keyed by (scope, target_id), shared by every replica.
 *
 * Guaranteed: `set` replaces the whole policy of its key; `list` is ordered by scope, then target.
 * Not guaranteed: validation of the globs (the caller compiles them first); any merge with the
 * policies of the configuration file.
 */
export interface ToolAccessPolicyRepository {
  get(scope: ToolAccessScope, targetId: string): Promise<ToolAccessPolicyRecord | undefined>;
  set(policy: ToolAccessPolicyRecord): Promise<void>;
  /** True when a policy was removed. */
  delete(scope: ToolAccessScope, targetId: string): Promise<boolean>;
  /** Every policy, or those of one scope. */
  list(scope?: ToolAccessScope): Promise<ToolAccessPolicyRecord[]>;
}
