import { expect, it } from "vitest";
import type { BlockedServer } from "../../../src/app/ports/blocked-server-repository.js";
import { describeEachBackend } from "../../support/backends.js";

const blocked = (mcp_server_id: string, extra: Partial<BlockedServer> = {}): BlockedServer => ({
  mcp_server_id,
  blocked_by: "admin",
  blocked_at: 100.5,
  ...extra,
});

await describeEachBackend("BlockedServerRepository", (repos) => {
  it("lists blocks by id", async () => {
    await repos().blockedServers.put(blocked("zeta"));
    await repos().blockedServers.put(blocked("alpha"));
    expect(await repos().blockedServers.list()).toEqual([blocked("alpha"), blocked("zeta")]);
  });

  it("keeps the first record when a server is blocked again", async () => {
    await repos().blockedServers.put(blocked("math"));
    await repos().blockedServers.put(blocked("math", { blocked_by: "other", blocked_at: 200 }));
    expect(await repos().blockedServers.list()).toEqual([blocked("math")]);
  });

  it("removes a block once", async () => {
    await repos().blockedServers.put(blocked("math"));
    expect(await repos().blockedServers.remove("math")).toBe(true);
    expect(await repos().blockedServers.remove("math")).toBe(false);
    expect(await repos().blockedServers.list()).toEqual([]);
  });
});
