import { compileL7Policy, DEFAULT_L7_POLICY, type L7Policy } from "../../domain/egress/l7-policy.js";
import { validationError } from "../../domain/errors.js";
import { SHARED_RECORDS_MAX_AGE_MS } from "../governance/governance.js";
import { SharedReader } from "../governance/shared-reader.js";
import type { Clock } from "../ports/clock.js";
import type { Hasher } from "../ports/hasher.js";
import type { L7PolicyRecord, L7PolicyRepository } from "../ports/l7-policy-repository.js";
import type { Logger } from "../ports/logger.js";

/** A policy attached to a server, as the call path and the routes use it. */
export interface AttachedPolicy {
  readonly mcp_server_id: string;
  /** `sha256:<hex>` over the RFC 8785 canonical JSON of `policy`. */
  readonly policyId: string;
  readonly policy: L7Policy;
  readonly updated_at: number;
  readonly updated_by: string;
}

/** The compiled policy as REST reads it back: `policyId`, then every section. */
export type PolicyView = { policyId: string } & L7Policy;

/**
 * The L7 egress policies of MCP servers (spec 1 "L7 egress policy"): attached and removed through
 * REST, kept in the shared store, and read on the call path from a local copy. A change through
 * this replica applies at once; one through another replica within the shared records' maximum
 * age. A stored policy this build cannot compile (written by another version) is replaced by the
 * default policy, which denies every call, and logged: a policy is never dropped silently.
 */
export class EgressPolicies {
  private byServer = new Map<string, AttachedPolicy>();
  private readonly reader: SharedReader<L7PolicyRecord[]>;

  constructor(
    private readonly deps: {
      repository: L7PolicyRepository;
      hasher: Hasher;
      clock: Clock;
      logger: Logger;
      maxAgeMs?: number;
    },
  ) {
    this.reader = new SharedReader(
      () => deps.repository.list(),
      (records) => {
        this.byServer = new Map(records.map((record) => [record.mcp_server_id, this.fromRecord(record)]));
      },
      {
        clock: deps.clock,
        logger: deps.logger,
        maxAgeMs: deps.maxAgeMs ?? SHARED_RECORDS_MAX_AGE_MS,
        what: "l7_policies",
      },
    );
  }

  /** Reads the store now (at start). */
  load(): Promise<void> {
    return this.reader.reload();
  }

  /** Re-reads the store when the local copy is older than the maximum age (on the call path). */
  fresh(): Promise<void> | undefined {
    return this.reader.fresh();
  }

  /** The policy the call path applies to calls reaching `serverId`, from the local copy. */
  policyOf(serverId: string): AttachedPolicy | undefined {
    return this.byServer.get(serverId);
  }

  /** The stored policy of a server, read from the store itself (what every replica applies). */
  async read(serverId: string): Promise<AttachedPolicy | undefined> {
    const record = await this.deps.repository.get(serverId);
    return record && this.fromRecord(record);
  }

  /**
   * Compiles `document` and attaches it to `serverId`, replacing any policy it had. Refuses an
   * invalid document with a `ValidationError` naming the first field and its rule (every issue in
   * `details.issues`), changing nothing.
   */
  async attach(
    serverId: string,
    document: unknown,
    actor: string,
  ): Promise<{ attached: AttachedPolicy; replaced: boolean }> {
    const compiled = compileL7Policy(document);
    if (!compiled.ok) {
      const first = compiled.issues[0]!;
      throw validationError(`Invalid field '${first.field}': ${first.rule}`, {
        issues: compiled.issues.map((issue) => ({ ...issue })),
      });
    }
    const attached: AttachedPolicy = {
      mcp_server_id: serverId,
      policyId: this.policyId(compiled.policy),
      policy: compiled.policy,
      updated_at: this.deps.clock.now() / 1000,
      updated_by: actor,
    };
    const replaced = (await this.deps.repository.get(serverId)) !== undefined;
    await this.deps.repository.set({
      mcp_server_id: serverId,
      policy: attached.policy,
      policy_id: attached.policyId,
      updated_at: attached.updated_at,
      updated_by: actor,
    });
    this.byServer.set(serverId, attached);
    await this.reader.reload();
    this.deps.logger.info(
      { mcp_server_id: serverId, policy_id: attached.policyId, mode: attached.policy.mode, actor, replaced },
      "L7 egress policy attached",
    );
    return { attached, replaced };
  }

  /** Removes the policy of `serverId`; false when it had none. */
  async detach(serverId: string, actor: string): Promise<boolean> {
    const deleted = await this.deps.repository.delete(serverId);
    this.byServer.delete(serverId);
    await this.reader.reload();
    if (deleted) this.deps.logger.info({ mcp_server_id: serverId, actor }, "L7 egress policy removed");
    return deleted;
  }

  /** `sha256:` and the SHA-256 of the policy's RFC 8785 canonical JSON. */
  policyId(policy: L7Policy): string {
    const { hasher } = this.deps;
    return `sha256:${hasher.sha256Hex(hasher.canonicalJson(policy))}`;
  }

  view(attached: AttachedPolicy): PolicyView {
    return { policyId: attached.policyId, ...attached.policy };
  }

  private fromRecord(record: L7PolicyRecord): AttachedPolicy {
    const compiled = compileL7Policy(record.policy);
    let policy: L7Policy;
    if (compiled.ok) {
      policy = compiled.policy;
    } else {
      this.deps.logger.error(
        { mcp_server_id: record.mcp_server_id, policy_id: record.policy_id, issues: compiled.issues },
        "stored L7 egress policy does not compile; every call to the server is denied until it is replaced",
      );
      policy = DEFAULT_L7_POLICY;
    }
    return {
      mcp_server_id: record.mcp_server_id,
      policyId: this.policyId(policy),
      policy,
      updated_at: record.updated_at,
      updated_by: record.updated_by,
    };
  }
}
