import { expect, it } from "vitest";
import type { ReplicaRecord } from "../../../src/app/ports/replica-registry.js";
import { describeEachBackend } from "../../support/backends.js";

const replica = (id: string, lastSeen: number, extra: Partial<ReplicaRecord> = {}): ReplicaRecord => ({
  instance_id: id,
  host: `host-${id}`,
  address: `http://10.0.0.1:${8000 + id.length}`,
  version: "1.2.3",
  started_at: 1_700_000_000.5,
  last_seen_at: lastSeen,
  ...extra,
});

await describeEachBackend("ReplicaRegistry", (repos) => {
  it("answers each replica as its last heartbeat wrote it, by instance id", async () => {
    const registry = repos().replicas;
    await registry.beat(replica("b", 1_700_000_100.25));
    await registry.beat(replica("a", 1_700_000_100.75, { address: null }));
    expect(await registry.live(0)).toEqual([
      replica("a", 1_700_000_100.75, { address: null }),
      replica("b", 1_700_000_100.25),
    ]);
    // A later beat replaces the row whole.
    await registry.beat(replica("b", 1_700_000_105, { address: "http://[::1]:9000", version: "2.0.0" }));
    expect(await registry.live(1_700_000_101)).toEqual([
      replica("b", 1_700_000_105, { address: "http://[::1]:9000", version: "2.0.0" }),
    ]);
  });

  it("ages out the replicas silent too long, and removes one that leaves", async () => {
    const registry = repos().replicas;
    await registry.beat(replica("old", 100));
    await registry.beat(replica("fresh", 200));
    await registry.beat(replica("leaving", 200));
    expect(await registry.prune(150)).toBe(1);
    expect((await registry.live(0)).map((r) => r.instance_id)).toEqual(["fresh", "leaving"]);
    expect(await registry.remove("leaving")).toBe(true);
    expect(await registry.remove("leaving")).toBe(false);
    expect((await registry.live(0)).map((r) => r.instance_id)).toEqual(["fresh"]);
  });
});
