import { afterEach, beforeEach, expect, it } from "vitest";
import type { L7PolicyRecord } from "../../../src/app/ports/l7-policy-repository.js";
import type { StoreRepositories } from "../../../src/app/ports/store-repositories.js";
import { BACKENDS, describeNow, describePostgres, openRepositories } from "../../support/backends.js";

const record = (extra: Partial<L7PolicyRecord> = {}): L7PolicyRecord => ({
  mcp_server_id: "math",
  policy: {
    tools: { allow: ["add", "sub*"], deny: ["div"], requireApproval: [] },
    headers: { allow: [], deny: [{ name: "Mcp-Param-Region", values: ["cn-*"] }], requireApproval: [] },
    arguments: { secretPatterns: ["aws-keys", "jwt"], maxPayloadBytes: 4096 },
    defaultAction: "Deny",
    mode: "Audit",
  },
  policy_id: `sha256:${"ab".repeat(32)}`,
  updated_at: 100.5,
  updated_by: "admin",
  ...extra,
});

for (const backend of BACKENDS) {
  await (backend === "postgres" ? describePostgres : describeNow)(`L7PolicyRepository on ${backend}`, () => {
    let repos: StoreRepositories;
    let close: (() => Promise<void>) | undefined;
    beforeEach(async () => {
      ({ repos, close } = await openRepositories(backend));
    });
    afterEach(async () => {
      await close?.();
      close = undefined;
    });

    it("reads back a policy exactly as it was set, a null payload limit included", async () => {
      await repos.l7Policies.set(record());
      expect(await repos.l7Policies.get("math")).toEqual(record());
      expect(await repos.l7Policies.get("text")).toBeUndefined();
      const unlimited = record({
        mcp_server_id: "text",
        policy: { ...record().policy, arguments: { secretPatterns: [], maxPayloadBytes: null } },
      });
      await repos.l7Policies.set(unlimited);
      expect(await repos.l7Policies.get("text")).toEqual(unlimited);
    });

    it("replaces the whole policy of a server on a second set", async () => {
      await repos.l7Policies.set(record());
      const replacement = record({
        policy: {
          ...record().policy,
          tools: { allow: [], deny: ["*"], requireApproval: [] },
          mode: "Enforce",
        },
        policy_id: `sha256:${"cd".repeat(32)}`,
        updated_at: 200,
        updated_by: "bob",
      });
      await repos.l7Policies.set(replacement);
      expect(await repos.l7Policies.get("math")).toEqual(replacement);
      expect(await repos.l7Policies.list()).toEqual([replacement]);
    });

    it("lists by server id in byte order", async () => {
      for (const id of ["text", "Zeta", "math", "a-b"])
        await repos.l7Policies.set(record({ mcp_server_id: id }));
      expect((await repos.l7Policies.list()).map((r) => r.mcp_server_id)).toEqual([
        "Zeta",
        "a-b",
        "math",
        "text",
      ]);
    });

    it("deletes a policy and says whether one existed", async () => {
      await repos.l7Policies.set(record());
      expect(await repos.l7Policies.delete("math")).toBe(true);
      expect(await repos.l7Policies.delete("math")).toBe(false);
      expect(await repos.l7Policies.get("math")).toBeUndefined();
      expect(await repos.l7Policies.list()).toEqual([]);
    });
  });
}
