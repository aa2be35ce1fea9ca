/**
 * The configuration schema: one zod schema covering every key of spec 2 §2 (and the `discovery`
 * block of spec 3), with defaults applied in its output and path-precise refusals.
 *
 * Use `validateConfig` (validate.ts) or the loader rather than `configSchema.safeParse` directly:
 * the schema reports unknown keys and deprecated values as issues, and the loader is what turns
 * them into warnings.
 */
import * as z from "zod";
import { authSchema } from "./schema/auth.js";
import { checkCrossFieldRules } from "./schema/cross-field.js";
import { discoverySchema } from "./schema/discovery.js";
import { executionSchema, interceptorsSchema, rateLimitSchema, truncationSchema } from "./schema/limits.js";
import { mcpServersSchema } from "./schema/mcp-servers.js";
import {
  hotLoadingSchema,
  httpSchema,
  loggingSchema,
  observabilitySchema,
  ssrfSchema,
} from "./schema/operations.js";
import {
  approvalsSchema,
  configReloadSchema,
  globalToolProjectionSchema,
  headersSchema,
  resourceLinksSchema,
  startupChecksSchema,
  toolAccessSchema,
  uiResourcesSchema,
} from "./schema/policy-sections.js";
import { bool, rule } from "./schema/primitives.js";
import { coordinationSchema, eventStoreSchema, persistenceSchema } from "./schema/storage.js";
import { uiSchema } from "./schema/ui.js";

export type { AuthConfig, OidcConfig, OidcIssuerConfig } from "./schema/auth.js";
export { listToolPolicies, type PolicyLocation } from "./schema/cross-field.js";
export { DISCOVERY_SOURCE_TYPES, type DiscoverySource } from "./schema/discovery.js";
export {
  type DeclaredEntries,
  GROUP_STRATEGIES,
  type GroupEntry,
  type GroupMember,
  type GroupStrategy,
  type InlineMember,
  type ReferenceMember,
} from "./schema/groups.js";
export { RESERVED_TENANT_ID, type ValidatorConfig } from "./schema/limits.js";
export { isGroupEntry, isServerEntry, type McpServerEntry } from "./schema/mcp-servers.js";
export { LOG_LEVELS, type LogLevel } from "./schema/operations.js";
export {
  type DockerServerEntry,
  type RemoteServerEntry,
  SERVER_ID_PATTERN,
  SERVER_MODES,
  type ServerEntry,
  type SubprocessServerEntry,
} from "./schema/servers.js";
export {
  type AccessPolicy,
  isPredefinedTools,
  type PredefinedTool,
  type TenantToolPolicy,
  TOOL_POLICY_KEYS,
  type ToolPolicy,
} from "./schema/tool-policy.js";

const sections = {
  mcp_servers: mcpServersSchema,
  approvals: approvalsSchema,
  ui_resources: uiResourcesSchema,
  ui: uiSchema,
  startup_checks: startupChecksSchema,
  tool_projection: globalToolProjectionSchema,
  headers: headersSchema,
  execution: executionSchema,
  truncation: truncationSchema,
  interceptors: interceptorsSchema,
  hot_loading: hotLoadingSchema,
  event_store: eventStoreSchema,
  persistence: persistenceSchema,
  coordination: coordinationSchema,
  logging: loggingSchema,
  observability: observabilitySchema,
  auth: authSchema,
  rate_limit: rateLimitSchema,
  resource_links: resourceLinksSchema,
  tool_access: toolAccessSchema,
  http: httpSchema,
  ssrf: ssrfSchema,
  relay_tasks_enabled: bool().default(true),
  config_reload: configReloadSchema,
  discovery: discoverySchema,
};

/** Names of the top-level sections. */
export const TOP_LEVEL_KEYS: readonly string[] = Object.keys(sections);

const draftSchema = z.strictObject(sections, rule("must be a mapping of configuration sections"));

type Draft = z.output<typeof draftSchema>;

/**
 * Fills the defaults that depend on whether `persistence.backend` was written: a selected backend
 * serves every concern, so unset legacy drivers resolve to it; `memory` written by hand stays.
 */
function finalize(draft: Draft) {
  const { backend, ...persistence } = draft.persistence;
  const { driver: eventDriver, ...eventStore } = draft.event_store;
  const { driver: storageDriver, ...storage } = draft.auth.storage;
  return {
    ...draft,
    persistence: { backend: backend ?? "sqlite", ...persistence },
    event_store: { ...eventStore, driver: eventDriver ?? backend ?? "sqlite" },
    auth: { ...draft.auth, storage: { driver: storageDriver ?? backend ?? "memory", ...storage } },
  };
}

/** The whole configuration file. An empty document is a configuration with every default. */
export const configSchema = z.preprocess(
  (value) => value ?? {},
  draftSchema.superRefine(checkCrossFieldRules, { when: () => true }).transform(finalize),
);

export type GatewayConfig = z.output<typeof configSchema>;
