import { expect, it } from "vitest";
import { describeEachBackend } from "../../support/backends.js";

await describeEachBackend("SharedSecretRepository", (repos) => {
  it("keeps the first value written under a name", async () => {
    expect(await repos().sharedSecrets.obtain("request_state_key", "first")).toBe("first");
    expect(await repos().sharedSecrets.obtain("request_state_key", "second")).toBe("first");
  });

  it("keeps names apart", async () => {
    await repos().sharedSecrets.obtain("a", "one");
    expect(await repos().sharedSecrets.obtain("b", "two")).toBe("two");
  });

  it("gives every concurrent caller the same value", async () => {
    const values = await Promise.all(
      ["x", "y", "z"].map((candidate) => repos().sharedSecrets.obtain("race", candidate)),
    );
    expect(new Set(values).size).toBe(1);
  });
});
