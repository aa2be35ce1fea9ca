import type { Generated } from "kysely";

/**
 * The tables of the repositories (migrations 0002 onward), the same in both dialects: times are
 * epoch seconds as double precision, JSON is text, booleans are integers 0/1 (SQLite has no
 * boolean type), counters are integers.
 */
export interface StoreTables {
  group_configs: {
    id: string;
    definition: string;
    created_at: number;
    updated_at: number;
  };
  server_configs: {
    id: string;
    spec: string;
    created_at: number;
    updated_at: number;
  };
  audit_records: {
    /** Order of appending, to break ties between equal `occurred_at`. */
    seq: Generated<number>;
    id: string;
    occurred_at: number;
    actor: string;
    action: string;
    target: string;
    outcome: string;
    details: string;
    tenant_id: string | null;
  };
  sagas: {
    saga_id: string;
    saga_type: string;
    state: string;
    version: number;
    updated_at: number;
  };
  approvals: {
    approval_id: string;
    mcp_server_id: string;
    tool_name: string;
    arguments: string;
    arguments_hash: string;
    state: string;
    channel: string;
    requested_at: number;
    expires_at: number;
    call_deadline_at: number | null;
    requested_by: string;
    tenant_id: string | null;
    decided_by: string | null;
    decided_at: number | null;
    reason: string | null;
  };
  api_keys: {
    key_id: string;
    key_hash: string;
    principal_id: string;
    name: string;
    created_by: string;
    created_at: number;
    expires_at: number | null;
    revoked: number;
    revoked_at: number | null;
    revoked_by: string | null;
    revoke_reason: string | null;
    last_used_at: number | null;
    tenant_id: string | null;
  };
  roles: {
    role_name: string;
    description: string;
    permissions: string;
    created_at: number;
    created_by: string;
    updated_at: number;
  };
  role_assignments: {
    principal_id: string;
    role_name: string;
    scope: string;
    assigned_by: string;
    assigned_at: number;
  };
  tool_access_policies: {
    scope: string;
    target_id: string;
    allow_list: string;
    deny_list: string;
    updated_at: number;
    updated_by: string;
  };
  l7_policies: {
    mcp_server_id: string;
    policy: string;
    policy_id: string;
    updated_at: number;
    updated_by: string;
  };
  metric_samples: {
    seq: Generated<number>;
    name: string;
    labels: string;
    value: number;
    recorded_at: number;
  };
  leases: {
    name: string;
    holder: string;
    generation: number;
    expires_at: number;
  };
  agent_policy: {
    id: string;
    /** bigint on PostgreSQL (read as a number: see open-postgres.ts). */
    version: number;
    tool_policies: string;
    pushed_by: string;
    pushed_at: number;
    revision: number;
  };
  shared_secrets: {
    name: string;
    value: string;
    created_at: number;
  };
  blocked_servers: {
    mcp_server_id: string;
    blocked_by: string;
    blocked_at: number;
  };
  catalog_entries: {
    entry_id: string;
    name: string;
    description: string;
    mode: string | null;
    /** JSON list of strings, or null. */
    command: string | null;
    image: string | null;
    endpoint: string | null;
    /** JSON list of strings, in the order given (`catalog_entry_tags` holds them for filtering). */
    tags: string;
    created_at: number;
    created_by: string;
    /** `searchFold` of `name` and of `description`: what a search compares. */
    search_name: string;
    search_description: string;
  };
  catalog_entry_tags: {
    entry_id: string;
    tag: string;
  };
  discovery_rejections: {
    mcp_server_id: string;
    fingerprint: string;
    rejected_by: string;
    rejected_at: number;
  };
  tool_withdrawals: {
    mcp_server_id: string;
    tool_name: string;
    /** `''`: every tenant. */
    tenant_id: string;
    withdrawn_by: string;
    withdrawn_at: number;
  };
  suspended_sessions: {
    session_id: string;
    reason: string;
    suspended_by: string;
    replica: string;
    suspended_at: number;
  };
  mcp_sessions: {
    session_id: string;
    principal_id: string;
    protocol_version: string;
    client_info: string;
    client_capabilities: string;
    created_at: number;
    last_seen_at: number;
    ended_at: number | null;
  };
  leader_commands: {
    command_id: string;
    operation: string;
    input: string;
    caller: string;
    requested_by: string;
    requested_at: number;
    claimed_generation: number | null;
    outcome: string | null;
    completed_at: number | null;
  };
}
