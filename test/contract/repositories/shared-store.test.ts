import { describe, expect, it } from "vitest";
import { memoryRepositories } from "../../../src/adapters/store/memory/memory-repositories.js";
import { openPostgres } from "../../../src/adapters/store/postgres/open-postgres.js";
import { sqlRepositories } from "../../../src/adapters/store/sql/sql-repositories.js";
import { openSqlite } from "../../../src/adapters/store/sqlite/open-sqlite.js";
import type { StoreRepositories } from "../../../src/app/ports/store-repositories.js";
import type { ServerSpec } from "../../../src/domain/server/server-spec.js";
import { DATABASE_URL, describePostgres, freshPostgres, freshSqlite } from "../../support/backends.js";

const spec: ServerSpec = {
  id: "math",
  mode: "remote",
  endpoint: "https://math.example/mcp",
  env: {},
  idle_ttl_s: 300,
  health_check_interval_s: 60,
  max_consecutive_failures: 3,
  source: "api",
};

/** Writes one record into the concerns a restart test cares about. */
async function writeSome(repos: StoreRepositories): Promise<void> {
  await repos.serverConfigs.save(spec, 10);
  await repos.toolAccessPolicies.set({
    scope: "provider",
    target_id: "math",
    allow_list: ["add"],
    deny_list: [],
    updated_at: 10,
    updated_by: "admin",
  });
  await repos.apiKeys.create({
    key_id: "k1",
    key_hash: "a".repeat(64),
    principal_id: "svc",
    name: "ci",
    created_by: "admin",
    created_at: 10,
    expires_at: null,
    tenant_id: null,
  });
  await repos.roleAssignments.assign({
    principal_id: "svc",
    role_name: "admin",
    scope: "global",
    assigned_by: "bootstrap",
    assigned_at: 10,
  });
  await repos.toolWithdrawals.withdraw({
    mcp_server_id: "math",
    tool_name: "divide",
    tenant_id: null,
    withdrawn_by: "admin",
    withdrawn_at: 10,
  });
  await repos.agentPolicy.replace({
    version: 4,
    tool_policies: [{ mcp_server_id: "*", action: "deny", tool_name: "rm" }],
    pushed_by: "agent",
    pushed_at: 10,
  });
}

async function expectSome(repos: StoreRepositories): Promise<void> {
  expect((await repos.serverConfigs.get("math"))?.spec).toEqual(spec);
  expect((await repos.toolAccessPolicies.get("provider", "math"))?.allow_list).toEqual(["add"]);
  expect((await repos.apiKeys.findByHash("a".repeat(64)))?.key_id).toBe("k1");
  expect(await repos.roleAssignments.listPrincipals()).toEqual(["svc"]);
  expect((await repos.toolWithdrawals.list()).map((w) => w.tool_name)).toEqual(["divide"]);
  expect(await repos.agentPolicy.get()).toMatchObject({ version: 4, revision: 1 });
}

describe("memory repositories", () => {
  it("say they are not durable and share nothing between two sets", async () => {
    const one = memoryRepositories();
    const two = memoryRepositories();
    expect(one.durable).toBe(false);
    await writeSome(one);
    expect(await two.serverConfigs.list()).toEqual([]);
  });
});

describe("SQLite repositories", () => {
  it("keep every record across a close and reopen of the same file", async () => {
    const first = await freshSqlite();
    const repos = sqlRepositories(first);
    expect(repos.durable).toBe(true);
    await writeSome(repos);
    await first.close();
    const again = await openSqlite({ path: first.path });
    try {
      await expectSome(sqlRepositories(again));
    } finally {
      await again.close();
    }
  });
});

await describePostgres("PostgreSQL repositories shared by two replicas", () => {
  it("show each replica what the other wrote, and after both restart", async () => {
    const first = await freshPostgres();
    try {
      const second = await openPostgres({
        connection: { connectionString: DATABASE_URL },
        schema: first.schema,
      });
      await writeSome(sqlRepositories(first));
      await expectSome(sqlRepositories(second));
      await second.close();
      const third = await openPostgres({
        connection: { connectionString: DATABASE_URL },
        schema: first.schema,
      });
      await expectSome(sqlRepositories(third));
      await third.close();
    } finally {
      await first.close();
    }
  });

  it("put in force the newest of agent policy pushes made through two replicas at once", async () => {
    const first = await freshPostgres();
    try {
      const second = await openPostgres({
        connection: { connectionString: DATABASE_URL },
        schema: first.schema,
      });
      try {
        const [a, b] = [sqlRepositories(first), sqlRepositories(second)];
        const pushAt = (repos: StoreRepositories, version: number) =>
          repos.agentPolicy.replace({
            version,
            tool_policies: [],
            pushed_by: `v${version}`,
            pushed_at: version,
          });
        // Versions 1 to 20 in a fixed shuffled order, alternating between the two pools.
        const versions = [7, 15, 3, 20, 11, 1, 18, 9, 5, 13, 2, 17, 8, 19, 4, 12, 6, 16, 10, 14];
        const outcomes = await Promise.all(versions.map((v, i) => pushAt(i % 2 === 0 ? a : b, v)));
        // Whatever order the pools ran them in, the highest version is in force at the end, and a
        // push was refused only in favour of a newer one.
        versions.forEach((version, i) => {
          const outcome = outcomes[i];
          if (outcome?.applied) expect(outcome.version).toBe(version);
          else expect(outcome?.version).toBeGreaterThan(version);
        });
        expect(outcomes[versions.indexOf(20)]).toEqual({ applied: true, version: 20 });
        expect(await b.agentPolicy.get()).toMatchObject({ version: 20, pushed_by: "v20" });
      } finally {
        await second.close();
      }
    } finally {
      await first.close();
    }
  });

  it("let one replica hold the lease and one replica decide an approval", async () => {
    const first = await freshPostgres();
    try {
      const second = await openPostgres({
        connection: { connectionString: DATABASE_URL },
        schema: first.schema,
      });
      try {
        const [a, b] = [sqlRepositories(first), sqlRepositories(second)];
        const attempts = await Promise.all([
          a.lease.acquire("m", "replica-a", 15),
          b.lease.acquire("m", "replica-b", 15),
        ]);
        expect(attempts.filter((x) => x.acquired)).toHaveLength(1);

        await a.approvals.create({
          approval_id: "ap1",
          mcp_server_id: "math",
          tool_name: "rm",
          arguments: {},
          arguments_hash: "b".repeat(64),
          state: "pending",
          channel: "rest",
          requested_at: 1,
          expires_at: 1e12,
          call_deadline_at: null,
          requested_by: "alice",
          tenant_id: null,
          decided_by: null,
          decided_at: null,
          reason: null,
        });
        const decisions = await Promise.all([
          a.approvals.decide("ap1", "pending", "approved", {
            decided_by: "bob",
            decided_at: 2,
            reason: null,
          }),
          b.approvals.decide("ap1", "pending", "denied", {
            decided_by: "carol",
            decided_at: 2,
            reason: null,
          }),
        ]);
        expect(decisions.filter((d) => d.decided)).toHaveLength(1);
      } finally {
        await second.close();
      }
    } finally {
      await first.close();
    }
  });
});
