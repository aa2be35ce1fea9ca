/**
 * What a replica needs to rebuild an MCP session of the gateway's own endpoint that another replica
 * opened. Times are epoch seconds, fractional.
 */
export interface McpSessionRecord {
  /** The `Mcp-Session-Id` handed out at initialize. */
  readonly session_id: string;
  /** The principal that opened the session; only it may use the session. */
  readonly principal_id: string;
  /** The protocol version negotiated at initialize. */
  readonly protocol_version: string;
  /** `clientInfo` of the initialize request. */
  readonly client_info: Record<string, unknown>;
  /** `capabilities` of the initialize request. */
  readonly client_capabilities: Record<string, unknown>;
  readonly created_at: number;
  /** The latest request seen by any replica, as far as replicas reported it (they batch). */
  readonly last_seen_at: number;
  /** Set once the session was ended (DELETE, expiry); an ended session never comes back. */
  readonly ended_at: number | null;
}

/**
 * MCP sessions of the gateway's endpoint, shared by the replicas of one database so that a load
 * balancer without sticky routing may send a session's requests to any of them.
 *
 * Guaranteed: at most one record per session id; `create` of an existing id changes nothing;
 * `touch` only moves `last_seen_at` forward and never touches an ended record; `end` is final.
 * Not guaranteed: that `last_seen_at` is current (callers batch their touches); any push to other
 * replicas (they read the store).
 */
export interface McpSessionRepository {
  /** True when other replicas read the same records (PostgreSQL), false for memory and SQLite. */
  readonly shared: boolean;
  create(record: McpSessionRecord): Promise<void>;
  get(sessionId: string): Promise<McpSessionRecord | undefined>;
  /** Moves `last_seen_at` of open sessions forward (older times are ignored). */
  touch(seen: ReadonlyArray<{ session_id: string; last_seen_at: number }>): Promise<void>;
  /** Marks the session ended at `at`; true when it was open until now. */
  end(sessionId: string, at: number): Promise<boolean>;
  /** Deletes records ended, or last seen, before `before`; answers how many. */
  purge(before: number): Promise<number>;
}
