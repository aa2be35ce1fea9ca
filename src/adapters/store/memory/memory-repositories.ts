import type { Clock } from "../../../app/ports/clock.js";
import type { StoreRepositories } from "../../../app/ports/store-repositories.js";
import { MemoryAgentPolicyRepository } from "./memory-agent-policy-repository.js";
import { MemoryApiKeyRepository } from "./memory-api-key-repository.js";
import { MemoryApprovalRepository } from "./memory-approval-repository.js";
import { MemoryAuditTrail } from "./memory-audit-trail.js";
import { MemoryBlockedServerRepository } from "./memory-blocked-server-repository.js";
import { MemoryCatalogRepository } from "./memory-catalog-repository.js";
import { MemoryConsoleSessionRepository } from "./memory-console-session-repository.js";
import { MemoryDiscoveryRejectionRepository } from "./memory-discovery-rejection-repository.js";
import { MemoryGroupConfigRepository } from "./memory-group-config-repository.js";
import { MemoryL7PolicyRepository } from "./memory-l7-policy-repository.js";
import { MemoryLeaseStore } from "./memory-lease-store.js";
import { MemoryMcpSessionRepository } from "./memory-mcp-session-repository.js";
import { MemoryMetricHistory } from "./memory-metric-history.js";
import { MemoryReplicaRegistry } from "./memory-replica-registry.js";
import { MemoryRoleAssignmentRepository } from "./memory-role-assignment-repository.js";
import { MemoryRoleRepository } from "./memory-role-repository.js";
import { MemorySagaStore } from "./memory-saga-store.js";
import { MemoryServerConfigRepository } from "./memory-server-config-repository.js";
import { MemorySharedSecretRepository } from "./memory-shared-secret-repository.js";
import { MemorySuspendedSessionRepository } from "./memory-suspended-session-repository.js";
import { MemoryToolAccessPolicyRepository } from "./memory-tool-access-policy-repository.js";
import { MemoryToolWithdrawalRepository } from "./memory-tool-withdrawal-repository.js";

export interface MemoryRepositoryOptions {
  /** The lease's clock (epoch milliseconds); default the system's. Nothing else reads a clock. */
  clock?: Pick<Clock, "now">;
}

/** Every repository in process memory: nothing survives a restart or is seen by another replica. */
export function memoryRepositories(options: MemoryRepositoryOptions = {}): StoreRepositories {
  return {
    durable: false,
    serverConfigs: new MemoryServerConfigRepository(),
    groupConfigs: new MemoryGroupConfigRepository(),
    audit: new MemoryAuditTrail(),
    sagas: new MemorySagaStore(),
    approvals: new MemoryApprovalRepository(),
    apiKeys: new MemoryApiKeyRepository(),
    roles: new MemoryRoleRepository(),
    roleAssignments: new MemoryRoleAssignmentRepository(),
    toolAccessPolicies: new MemoryToolAccessPolicyRepository(),
    l7Policies: new MemoryL7PolicyRepository(),
    metricHistory: new MemoryMetricHistory(),
    lease: new MemoryLeaseStore(options.clock),
    suspendedSessions: new MemorySuspendedSessionRepository(),
    toolWithdrawals: new MemoryToolWithdrawalRepository(),
    agentPolicy: new MemoryAgentPolicyRepository(),
    discoveryRejections: new MemoryDiscoveryRejectionRepository(),
    blockedServers: new MemoryBlockedServerRepository(),
    consoleSessions: new MemoryConsoleSessionRepository(),
    replicas: new MemoryReplicaRegistry(),
    catalog: new MemoryCatalogRepository(),
    sharedSecrets: new MemorySharedSecretRepository(),
    mcpSessions: new MemoryMcpSessionRepository(),
  };
}
