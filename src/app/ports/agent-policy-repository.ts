import type { AgentPolicyEntry } from "../../domain/policy/agent-policy.js";

/** A push of `POST /agent/policy`. `pushed_at` is epoch seconds, fractional. */
export interface AgentPolicyPush {
  readonly version: number;
  readonly tool_policies: readonly AgentPolicyEntry[];
  readonly pushed_by: string;
  readonly pushed_at: number;
}

/** The agent policy in force. */
export interface StoredAgentPolicy extends AgentPolicyPush {
  /** Counts the pushes put in force, 1 for the first: tells a reader whether its copy is current. */
  readonly revision: number;
}

/**
 * The tool policy a policy agent pushed, shared so that every replica (one started later too)
 * enforces the last push, and kept across restarts.
 *
 * Guaranteed: one policy at a time; `replace` is atomic against concurrent pushes through other
 * replicas: a push is put in force only when its version is not older than the one stored, and
 * each push put in force raises the revision by one.
 */
export interface AgentPolicyRepository {
  /** Stores the push unless the stored version is newer; `version` is the version in force after it. */
  replace(push: AgentPolicyPush): Promise<{ applied: boolean; version: number }>;
  get(): Promise<StoredAgentPolicy | undefined>;
  /** The revision in force (0: none yet): a small read before `get`. */
  revision(): Promise<number>;
}
