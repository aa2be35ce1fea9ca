import type { Kysely } from "kysely";
import type { StoreRepositories } from "../../../app/ports/store-repositories.js";
import type { SqlStore } from "../sql-store.js";
import { SqlAgentPolicyRepository } from "./sql-agent-policy-repository.js";
import { SqlApiKeyRepository } from "./sql-api-key-repository.js";
import { SqlApprovalRepository } from "./sql-approval-repository.js";
import { SqlAuditTrail } from "./sql-audit-trail.js";
import { SqlBlockedServerRepository } from "./sql-blocked-server-repository.js";
import { SqlCatalogRepository } from "./sql-catalog-repository.js";
import { SqlConsoleSessionRepository } from "./sql-console-session-repository.js";
import { SqlDiscoveryRejectionRepository } from "./sql-discovery-rejection-repository.js";
import { SqlGroupConfigRepository } from "./sql-group-config-repository.js";
import { SqlL7PolicyRepository } from "./sql-l7-policy-repository.js";
import { SqlLeaderCommandQueue } from "./sql-leader-command-queue.js";
import { SqlLeaseStore } from "./sql-lease-store.js";
import { SqlMcpSessionRepository } from "./sql-mcp-session-repository.js";
import { SqlMetricHistory } from "./sql-metric-history.js";
import { SqlReplicaRegistry } from "./sql-replica-registry.js";
import { SqlRoleAssignmentRepository } from "./sql-role-assignment-repository.js";
import { SqlRoleRepository } from "./sql-role-repository.js";
import { SqlSagaStore } from "./sql-saga-store.js";
import { SqlServerConfigRepository } from "./sql-server-config-repository.js";
import { SqlSharedSecretRepository } from "./sql-shared-secret-repository.js";
import { SqlSuspendedSessionRepository } from "./sql-suspended-session-repository.js";
import { SqlToolAccessPolicyRepository } from "./sql-tool-access-policy-repository.js";
import { SqlToolWithdrawalRepository } from "./sql-tool-withdrawal-repository.js";
import type { StoreTables } from "./store-tables.js";

/**
 * Every repository over one open (and migrated) SQLite or PostgreSQL store. The repositories hold
 * no connection of their own: closing `store` ends them.
 */
export function sqlRepositories<DB>(store: SqlStore<DB>): StoreRepositories {
  // The store's own table type (if any) does not matter here: migrations 0002+ create these tables.
  const db = store.db as unknown as Kysely<StoreTables>;
  return {
    durable: true,
    serverConfigs: new SqlServerConfigRepository(db),
    groupConfigs: new SqlGroupConfigRepository(db),
    audit: new SqlAuditTrail(db, store.dialect),
    sagas: new SqlSagaStore(db),
    approvals: new SqlApprovalRepository(db),
    apiKeys: new SqlApiKeyRepository(db),
    roles: new SqlRoleRepository(db),
    roleAssignments: new SqlRoleAssignmentRepository(db),
    toolAccessPolicies: new SqlToolAccessPolicyRepository(db),
    l7Policies: new SqlL7PolicyRepository(db),
    metricHistory: new SqlMetricHistory(db),
    lease: new SqlLeaseStore(db, store.dialect),
    suspendedSessions: new SqlSuspendedSessionRepository(db),
    toolWithdrawals: new SqlToolWithdrawalRepository(db),
    discoveryRejections: new SqlDiscoveryRejectionRepository(db),
    blockedServers: new SqlBlockedServerRepository(db),
    consoleSessions: new SqlConsoleSessionRepository(db),
    replicas: new SqlReplicaRegistry(db),
    catalog: new SqlCatalogRepository(db),
    sharedSecrets: new SqlSharedSecretRepository(db),
    agentPolicy: new SqlAgentPolicyRepository(db),
    mcpSessions: new SqlMcpSessionRepository(db, store.dialect),
    ...(store.dialect === "postgres" && { leaderCommands: new SqlLeaderCommandQueue(db, store.dialect) }),
  };
}
