/**
 * The names MCP revision 2026-07-28 (stateless: no `initialize`, every request carries its own
 * `_meta` envelope) gives on the wire, shared by the endpoint that serves it and the upstream
 * connections that speak it.
 */
export const STATELESS_REVISION = "2026-07-28";

/** The `_meta` keys of the revision's per-request envelope and of its results. */
export const STATELESS_META = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
} as const;

/** The requests whose answer may be `input_required`. */
export const INPUT_REQUIRED_METHODS: ReadonlySet<string> = new Set([
  "tools/call",
  "prompts/get",
  "resources/read",
]);

/** The tasks extension of revision 2026-07-28, by its identifier. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** The methods of the tasks extension, each naming a task by `taskId`. */
export const TASKS_EXTENSION_METHODS: ReadonlySet<string> = new Set([
  "tasks/get",
  "tasks/update",
  "tasks/cancel",
]);
