import { expect, it } from "vitest";
import type { AgentPolicyPush } from "../../../src/app/ports/agent-policy-repository.js";
import { describeEachBackend } from "../../support/backends.js";

const push = (version: number, tool_name = "add", extra: Partial<AgentPolicyPush> = {}): AgentPolicyPush => ({
  version,
  tool_policies: [{ mcp_server_id: "*", action: "deny", tool_name }],
  pushed_by: "agent",
  pushed_at: 100,
  ...extra,
});

await describeEachBackend("AgentPolicyRepository", (repos) => {
  it("holds nothing at first: no policy, revision 0", async () => {
    expect(await repos().agentPolicy.get()).toBeUndefined();
    expect(await repos().agentPolicy.revision()).toBe(0);
  });

  it("stores a push and reads it back with its revision", async () => {
    expect(await repos().agentPolicy.replace(push(3))).toEqual({ applied: true, version: 3 });
    expect(await repos().agentPolicy.get()).toEqual({ ...push(3), revision: 1 });
    expect(await repos().agentPolicy.revision()).toBe(1);
  });

  it("replaces on an equal or newer version, raising the revision each time", async () => {
    await repos().agentPolicy.replace(push(3));
    expect(await repos().agentPolicy.replace(push(3, "sub", { pushed_by: "other" }))).toEqual({
      applied: true,
      version: 3,
    });
    expect(await repos().agentPolicy.replace(push(2 ** 40, "mul"))).toEqual({
      applied: true,
      version: 2 ** 40,
    });
    expect(await repos().agentPolicy.get()).toEqual({ ...push(2 ** 40, "mul"), revision: 3 });
  });

  it("refuses an older version, answers the version in force and changes nothing", async () => {
    await repos().agentPolicy.replace(push(5));
    expect(await repos().agentPolicy.replace(push(4, "sub"))).toEqual({ applied: false, version: 5 });
    expect(await repos().agentPolicy.get()).toEqual({ ...push(5), revision: 1 });
  });

  it("keeps an empty policy as a push of its own", async () => {
    await repos().agentPolicy.replace(push(1));
    await repos().agentPolicy.replace({ ...push(2), tool_policies: [] });
    expect(await repos().agentPolicy.get()).toMatchObject({ version: 2, tool_policies: [], revision: 2 });
  });
});
