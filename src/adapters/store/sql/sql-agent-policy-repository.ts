import { type Kysely, sql } from "kysely";
import type {
  AgentPolicyPush,
  AgentPolicyRepository,
  StoredAgentPolicy,
} from "../../../app/ports/agent-policy-repository.js";
import type { AgentPolicyEntry } from "../../../domain/policy/agent-policy.js";
import { fromJson, toJson } from "./sql-helpers.js";
import type { StoreTables } from "./store-tables.js";

/** The one row of `agent_policy`. */
const ROW_ID = "current";

export class SqlAgentPolicyRepository implements AgentPolicyRepository {
  constructor(private readonly db: Kysely<StoreTables>) {}

  async replace(push: AgentPolicyPush): Promise<{ applied: boolean; version: number }> {
    // One statement: the version rule is checked by the database, against a push through another
    // replica at the same moment too.
    const written = await this.db
      .insertInto("agent_policy")
      .values({
        id: ROW_ID,
        version: push.version,
        tool_policies: toJson(push.tool_policies),
        pushed_by: push.pushed_by,
        pushed_at: push.pushed_at,
        revision: 1,
      })
      .onConflict((oc) =>
        oc
          .column("id")
          .doUpdateSet((eb) => ({
            version: eb.ref("excluded.version"),
            tool_policies: eb.ref("excluded.tool_policies"),
            pushed_by: eb.ref("excluded.pushed_by"),
            pushed_at: eb.ref("excluded.pushed_at"),
            revision: sql<number>`agent_policy.revision + 1`,
          }))
          .where("agent_policy.version", "<=", (eb) => eb.ref("excluded.version")),
      )
      .returning("id")
      .executeTakeFirst();
    if (written) return { applied: true, version: push.version };
    const current = await this.db.selectFrom("agent_policy").select("version").executeTakeFirst();
    return { applied: false, version: current?.version ?? 0 };
  }

  async get(): Promise<StoredAgentPolicy | undefined> {
    const row = await this.db.selectFrom("agent_policy").selectAll().executeTakeFirst();
    if (!row) return undefined;
    return {
      version: row.version,
      tool_policies: fromJson<AgentPolicyEntry[]>(row.tool_policies),
      pushed_by: row.pushed_by,
      pushed_at: row.pushed_at,
      revision: row.revision,
    };
  }

  async revision(): Promise<number> {
    const row = await this.db.selectFrom("agent_policy").select("revision").executeTakeFirst();
    return row?.revision ?? 0;
  }
}
