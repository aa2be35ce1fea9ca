import { afterEach, beforeEach, expect, it } from "vitest";
import type { AuditRecord } from "../../../src/app/ports/audit-trail.js";
import type { StoreRepositories } from "../../../src/app/ports/store-repositories.js";
import { BACKENDS, describeNow, describePostgres, openRepositories } from "../../support/backends.js";

const record = (id: string, occurred_at: number, extra: Partial<AuditRecord> = {}): AuditRecord => ({
  id,
  occurred_at,
  actor: "alice",
  action: "register-server",
  target: "math",
  outcome: "success",
  details: { mode: "subprocess", nested: { n: 1 } },
  tenant_id: null,
  ...extra,
});

for (const backend of BACKENDS) {
  await (backend === "postgres" ? describePostgres : describeNow)(`AuditTrail on ${backend}`, () => {
    let repos: StoreRepositories;
    let close: (() => Promise<void>) | undefined;
    beforeEach(async () => {
      ({ repos, close } = await openRepositories(backend));
    });
    afterEach(async () => {
      await close?.();
      close = undefined;
    });

    it("returns appended records newest first, with their details", async () => {
      await repos.audit.append([record("a", 10), record("b", 30.5, { tenant_id: "t1" }), record("c", 20)]);
      const records = await repos.audit.query();
      expect(records.map((r) => r.id)).toEqual(["b", "c", "a"]);
      expect(records[0]).toEqual(record("b", 30.5, { tenant_id: "t1" }));
    });

    it("orders records of the same instant in reverse order of appending", async () => {
      await repos.audit.append([record("first", 5), record("second", 5)]);
      await repos.audit.append([record("third", 5)]);
      expect((await repos.audit.query()).map((r) => r.id)).toEqual(["third", "second", "first"]);
    });

    it("filters by time range (from inclusive, to exclusive), actor, action and tenant", async () => {
      await repos.audit.append([
        record("a", 10, { actor: "alice", action: "start" }),
        record("b", 20, { actor: "bob", action: "start", tenant_id: "t1" }),
        record("c", 30, { actor: "alice", action: "stop", tenant_id: "t1" }),
        record("d", 40, { actor: "alice", action: "start" }),
      ]);
      const ids = async (q: Parameters<StoreRepositories["audit"]["query"]>[0]) =>
        (await repos.audit.query(q)).map((r) => r.id);
      expect(await ids({ from: 20, to: 40 })).toEqual(["c", "b"]);
      expect(await ids({ actor: "alice" })).toEqual(["d", "c", "a"]);
      expect(await ids({ action: "start", actor: "alice" })).toEqual(["d", "a"]);
      expect(await ids({ tenant_id: "t1" })).toEqual(["c", "b"]);
      expect(await ids({ actor: "nobody" })).toEqual([]);
    });

    it("filters by target, outcome and the tool a tool invocation names", async () => {
      const call = (id: string, at: number, target: string, tool: string, outcome: string) =>
        record(id, at, { action: "tool_invocation", target, outcome, details: { "mcp.tool.name": tool } });
      await repos.audit.append([
        call("a", 1, "math", "add", "success"),
        call("b", 2, "math", "multiply", "denied"),
        call("c", 3, "text", "add", "failure"),
        record("d", 4, { target: "math", details: { "mcp.tool": "add" } }),
      ]);
      const ids = async (q: Parameters<StoreRepositories["audit"]["query"]>[0]) =>
        (await repos.audit.query(q)).map((r) => r.id);
      expect(await ids({ target: "math" })).toEqual(["d", "b", "a"]);
      expect(await ids({ outcome: "denied" })).toEqual(["b"]);
      expect(await ids({ tool: "add" })).toEqual(["c", "a"]);
      expect(await ids({ tool: "add", target: "math" })).toEqual(["a"]);
      expect(await ids({ tool: "subtract" })).toEqual([]);
    });

    it("pages with `after`: the next page starts after the given record, ties of an instant included", async () => {
      await repos.audit.append([record("r0", 1), record("r1", 2), record("r2", 2), record("r3", 2)]);
      await repos.audit.append([record("r4", 3), record("r5", 2)]);
      const order = ["r4", "r5", "r3", "r2", "r1", "r0"];
      expect((await repos.audit.query()).map((r) => r.id)).toEqual(order);
      const seen: string[] = [];
      let after: string | undefined;
      for (;;) {
        const page = await repos.audit.query({ limit: 2, ...(after !== undefined && { after }) });
        if (page.length === 0) break;
        seen.push(...page.map((r) => r.id));
        after = page.at(-1)?.id;
      }
      expect(seen).toEqual(order);
      // A record appended meanwhile, newer than the cursor, does not shift the pages after it.
      await repos.audit.append([record("r6", 9)]);
      expect((await repos.audit.query({ after: "r5", limit: 2 })).map((r) => r.id)).toEqual(["r3", "r2"]);
      expect((await repos.audit.query({ after: "r3", actor: "nobody" })).map((r) => r.id)).toEqual([]);
      expect(await repos.audit.query({ after: "no-such-record" })).toEqual([]);
    });

    it("returns at most `limit` records, the newest ones", async () => {
      await repos.audit.append(Array.from({ length: 12 }, (_, i) => record(`r${i}`, i)));
      expect((await repos.audit.query({ limit: 3 })).map((r) => r.id)).toEqual(["r11", "r10", "r9"]);
      expect(await repos.audit.query({ limit: 0 })).toHaveLength(1);
      expect(await repos.audit.query()).toHaveLength(12);
    });

    it("ignores a record whose id is already stored, so a retried append adds nothing", async () => {
      await repos.audit.append([record("a", 1, { outcome: "success" })]);
      await repos.audit.append([record("a", 2, { outcome: "failure" }), record("b", 3)]);
      const records = await repos.audit.query();
      expect(records.map((r) => [r.id, r.outcome])).toEqual([
        ["b", "success"],
        ["a", "success"],
      ]);
    });

    it("appends a large batch in one call", async () => {
      await repos.audit.append(Array.from({ length: 1_200 }, (_, i) => record(`r${i}`, i)));
      expect(await repos.audit.query({ limit: 10_000 })).toHaveLength(1_200);
    });
  });
}
