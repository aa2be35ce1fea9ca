import { expect, it } from "vitest";
import type { ToolWithdrawal } from "../../../src/app/ports/tool-withdrawal-repository.js";
import { describeEachBackend } from "../../support/backends.js";

const withdrawal = (
  mcp_server_id: string,
  tool_name: string,
  tenant_id: string | null,
  extra: Partial<ToolWithdrawal> = {},
): ToolWithdrawal => ({
  mcp_server_id,
  tool_name,
  tenant_id,
  withdrawn_by: "admin",
  withdrawn_at: 100,
  ...extra,
});

await describeEachBackend("ToolWithdrawalRepository", (repos) => {
  it("keeps a withdrawal for one tenant and one for every tenant side by side", async () => {
    await repos().toolWithdrawals.withdraw(withdrawal("math", "add", "t1"));
    await repos().toolWithdrawals.withdraw(withdrawal("math", "add", null));
    expect(await repos().toolWithdrawals.list()).toEqual([
      withdrawal("math", "add", null),
      withdrawal("math", "add", "t1"),
    ]);
  });

  it("replaces the record when the same tool is withdrawn again for the same tenant", async () => {
    await repos().toolWithdrawals.withdraw(withdrawal("math", "add", null));
    await repos().toolWithdrawals.withdraw(
      withdrawal("math", "add", null, { withdrawn_by: "bob", withdrawn_at: 200 }),
    );
    expect(await repos().toolWithdrawals.list()).toEqual([
      withdrawal("math", "add", null, { withdrawn_by: "bob", withdrawn_at: 200 }),
    ]);
  });

  it("restores one tenant, leaving the withdrawal for every tenant, and says whether it removed one", async () => {
    await repos().toolWithdrawals.withdraw(withdrawal("math", "add", "t1"));
    await repos().toolWithdrawals.withdraw(withdrawal("math", "add", null));
    expect(await repos().toolWithdrawals.restore("math", "add", "t1")).toBe(true);
    expect(await repos().toolWithdrawals.restore("math", "add", "t1")).toBe(false);
    expect(await repos().toolWithdrawals.restore("math", "add", "t2")).toBe(false);
    expect(await repos().toolWithdrawals.list()).toEqual([withdrawal("math", "add", null)]);
  });

  it("restores every record of the tool with a null tenant, and no other tool's", async () => {
    await repos().toolWithdrawals.withdraw(withdrawal("math", "add", "t1"));
    await repos().toolWithdrawals.withdraw(withdrawal("math", "add", "t2"));
    await repos().toolWithdrawals.withdraw(withdrawal("math", "sub", null));
    await repos().toolWithdrawals.withdraw(withdrawal("pool", "add", null));
    expect(await repos().toolWithdrawals.restore("math", "add", null)).toBe(true);
    expect(await repos().toolWithdrawals.restore("math", "add", null)).toBe(false);
    expect(await repos().toolWithdrawals.list()).toEqual([
      withdrawal("math", "sub", null),
      withdrawal("pool", "add", null),
    ]);
  });

  it("refuses an empty tenant id, which must not read as every tenant, and stores nothing", async () => {
    await expect(repos().toolWithdrawals.withdraw(withdrawal("math", "add", ""))).rejects.toThrow(TypeError);
    await expect(repos().toolWithdrawals.restore("math", "add", "")).rejects.toThrow(TypeError);
    expect(await repos().toolWithdrawals.list()).toEqual([]);
  });

  it("lists oldest first, then by server, tool and tenant", async () => {
    await repos().toolWithdrawals.withdraw(withdrawal("b", "x", null, { withdrawn_at: 20 }));
    await repos().toolWithdrawals.withdraw(withdrawal("a", "y", "t2", { withdrawn_at: 20 }));
    await repos().toolWithdrawals.withdraw(withdrawal("a", "y", "t1", { withdrawn_at: 20 }));
    await repos().toolWithdrawals.withdraw(withdrawal("c", "z", null, { withdrawn_at: 10 }));
    expect(
      (await repos().toolWithdrawals.list()).map((w) => `${w.mcp_server_id}/${w.tool_name}/${w.tenant_id}`),
    ).toEqual(["c/z/null", "a/y/t1", "a/y/t2", "b/x/null"]);
  });
});
