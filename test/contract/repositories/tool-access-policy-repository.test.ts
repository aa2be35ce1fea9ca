import { afterEach, beforeEach, expect, it } from "vitest";
import type { StoreRepositories } from "../../../src/app/ports/store-repositories.js";
import type { ToolAccessPolicyRecord } from "../../../src/app/ports/tool-access-policy-repository.js";
import { BACKENDS, describeNow, describePostgres, openRepositories } from "../../support/backends.js";

const policy = (extra: Partial<ToolAccessPolicyRecord> = {}): ToolAccessPolicyRecord => ({
  scope: "provider",
  target_id: "math",
  allow_list: ["add", "sub*"],
  deny_list: ["sub_secret"],
  updated_at: 100.5,
  updated_by: "admin",
  ...extra,
});

for (const backend of BACKENDS) {
  await (backend === "postgres" ? describePostgres : describeNow)(
    `ToolAccessPolicyRepository on ${backend}`,
    () => {
      let repos: StoreRepositories;
      let close: (() => Promise<void>) | undefined;
      beforeEach(async () => {
        ({ repos, close } = await openRepositories(backend));
      });
      afterEach(async () => {
        await close?.();
        close = undefined;
      });

      it("reads back a policy that was set, lists in order", async () => {
        await repos.toolAccessPolicies.set(policy());
        expect(await repos.toolAccessPolicies.get("provider", "math")).toEqual(policy());
        expect(await repos.toolAccessPolicies.get("group", "math")).toBeUndefined();
      });

      it("replaces the whole policy of a key on a second set", async () => {
        await repos.toolAccessPolicies.set(policy());
        await repos.toolAccessPolicies.set(
          policy({ allow_list: [], deny_list: ["*"], updated_at: 200, updated_by: "bob" }),
        );
        expect(await repos.toolAccessPolicies.get("provider", "math")).toEqual(
          policy({ allow_list: [], deny_list: ["*"], updated_at: 200, updated_by: "bob" }),
        );
        expect(await repos.toolAccessPolicies.list()).toHaveLength(1);
      });

      it("keeps the same target under different scopes apart and lists by scope, then target", async () => {
        await repos.toolAccessPolicies.set(policy({ scope: "member", target_id: "m1" }));
        await repos.toolAccessPolicies.set(policy({ scope: "group", target_id: "g2" }));
        await repos.toolAccessPolicies.set(policy({ scope: "group", target_id: "g1" }));
        await repos.toolAccessPolicies.set(policy({ scope: "provider", target_id: "g1" }));
        const keys = (await repos.toolAccessPolicies.list()).map((p) => `${p.scope}/${p.target_id}`);
        expect(keys).toEqual(["group/g1", "group/g2", "member/m1", "provider/g1"]);
        expect((await repos.toolAccessPolicies.list("group")).map((p) => p.target_id)).toEqual(["g1", "g2"]);
      });

      it("deletes a policy and says whether one existed", async () => {
        await repos.toolAccessPolicies.set(policy());
        expect(await repos.toolAccessPolicies.delete("provider", "math")).toBe(true);
        expect(await repos.toolAccessPolicies.delete("provider", "math")).toBe(false);
        expect(await repos.toolAccessPolicies.get("provider", "math")).toBeUndefined();
      });
    },
  );
}
