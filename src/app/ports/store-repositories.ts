import type { AgentPolicyRepository } from "./agent-policy-repository.js";
import type { ApiKeyRepository } from "./api-key-repository.js";
import type { ApprovalRepository } from "./approval-repository.js";
import type { AuditTrail } from "./audit-trail.js";
import type { BlockedServerRepository } from "./blocked-server-repository.js";
import type { CatalogRepository } from "./catalog-repository.js";
import type { ConsoleSessionRepository } from "./console-session-repository.js";
import type { DiscoveryRejectionRepository } from "./discovery-rejection-repository.js";
import type { GroupConfigRepository } from "./group-config-repository.js";
import type { L7PolicyRepository } from "./l7-policy-repository.js";
import type { LeaderCommandQueue } from "./leader-command-queue.js";
import type { LeaseStore } from "./lease-store.js";
import type { McpSessionRepository } from "./mcp-session-repository.js";
import type { MetricHistory } from "./metric-history.js";
import type { ReplicaRegistry } from "./replica-registry.js";
import type { RoleAssignmentRepository } from "./role-assignment-repository.js";
import type { RoleRepository } from "./role-repository.js";
import type { SagaStore } from "./saga-store.js";
import type { ServerConfigRepository } from "./server-config-repository.js";
import type { SharedSecretRepository } from "./shared-secret-repository.js";
import type { SuspendedSessionRepository } from "./suspended-session-repository.js";
import type { ToolAccessPolicyRepository } from "./tool-access-policy-repository.js";
import type { ToolWithdrawalRepository } from "./tool-withdrawal-repository.js";

/**
 * Every repository of one backend (the event store is separate: it batches and owns its
 * lifecycle). All members share the backend's connection; closing the backend closes them.
 */
export interface StoreRepositories {
  /** True when the records survive a restart and are shared by replicas using the same database. */
  readonly durable: boolean;
  readonly serverConfigs: ServerConfigRepository;
  readonly groupConfigs: GroupConfigRepository;
  readonly audit: AuditTrail;
  readonly sagas: SagaStore;
  readonly approvals: ApprovalRepository;
  readonly apiKeys: ApiKeyRepository;
  readonly roles: RoleRepository;
  readonly roleAssignments: RoleAssignmentRepository;
  readonly toolAccessPolicies: ToolAccessPolicyRepository;
  readonly l7Policies: L7PolicyRepository;
  readonly metricHistory: MetricHistory;
  readonly lease: LeaseStore;
  /** Replicas sharing this store, by their heartbeats. */
  readonly replicas: ReplicaRegistry;
  readonly suspendedSessions: SuspendedSessionRepository;
  readonly toolWithdrawals: ToolWithdrawalRepository;
  readonly agentPolicy: AgentPolicyRepository;
  readonly discoveryRejections: DiscoveryRejectionRepository;
  readonly blockedServers: BlockedServerRepository;
  /** Signed-in console sessions (docs/console.md). */
  readonly consoleSessions: ConsoleSessionRepository;
  /** Entries of the server catalog (`/catalog`). */
  readonly catalog: CatalogRepository;
  /** Secrets the replicas share (the key `requestState` is signed with). */
  readonly sharedSecrets: SharedSecretRepository;
  /** Sessions of the gateway's own MCP endpoint (see `McpSessionRepository.shared`). */
  readonly mcpSessions: McpSessionRepository;
  /** Leader-only commands handed between replicas: only where replicas share the store (PostgreSQL). */
  readonly leaderCommands?: LeaderCommandQueue;
}
