import { expect, it } from "vitest";
import type { DiscoveryRejection } from "../../../src/app/ports/discovery-rejection-repository.js";
import { describeEachBackend } from "../../support/backends.js";

const rejection = (mcp_server_id: string, extra: Partial<DiscoveryRejection> = {}): DiscoveryRejection => ({
  mcp_server_id,
  fingerprint: "sha256:aaaa",
  rejected_by: "admin",
  rejected_at: 100.5,
  ...extra,
});

await describeEachBackend("DiscoveryRejectionRepository", (repos) => {
  it("lists rejections by name", async () => {
    await repos().discoveryRejections.put(rejection("zeta"));
    await repos().discoveryRejections.put(rejection("alpha"));
    expect(await repos().discoveryRejections.list()).toEqual([rejection("alpha"), rejection("zeta")]);
  });

  it("keeps one record per name: rejecting again replaces the fingerprint, actor and time", async () => {
    await repos().discoveryRejections.put(rejection("adder"));
    const again = rejection("adder", {
      fingerprint: "sha256:bbbb",
      rejected_by: "bob",
      rejected_at: 200,
    });
    await repos().discoveryRejections.put(again);
    expect(await repos().discoveryRejections.list()).toEqual([again]);
  });

  it("removes a record, and says whether there was one", async () => {
    await repos().discoveryRejections.put(rejection("adder"));
    expect(await repos().discoveryRejections.remove("adder")).toBe(true);
    expect(await repos().discoveryRejections.remove("adder")).toBe(false);
    expect(await repos().discoveryRejections.list()).toEqual([]);
  });

  it("hands out copies: changing a listed record changes nothing stored", async () => {
    await repos().discoveryRejections.put(rejection("adder"));
    const [listed] = await repos().discoveryRejections.list();
    (listed as { fingerprint: string }).fingerprint = "changed";
    expect(await repos().discoveryRejections.list()).toEqual([rejection("adder")]);
  });
});
