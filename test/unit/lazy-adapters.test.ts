import { describe, expect, it } from "vitest";
import type { DiscoverySource } from "../../src/app/ports/discovery-source.js";
import { lazyDiscoverySource } from "../../src/composition/lazy-adapters.js";

const EMPTY = { servers: [], problems: [] };

/** A change feed that records its listener; stopping it does nothing. */
function feed(listeners: Array<() => void>, onChange: () => void): () => void {
  listeners.push(onChange);
  return () => undefined;
}

describe("a discovery source loaded on first use", () => {
  it("loads once, and starts the change feed asked for before it loaded", async () => {
    let loads = 0;
    const watched: Array<() => void> = [];
    const lazy = lazyDiscoverySource("docker", async () => {
      loads += 1;
      return {
        type: "docker",
        scan: async () => EMPTY,
        watch: (onChange) => feed(watched, onChange),
      };
    });
    const changes: string[] = [];
    lazy.watch?.(() => changes.push("change"));
    await lazy.scan(AbortSignal.timeout(1_000));
    await lazy.scan(AbortSignal.timeout(1_000));
    expect(loads).toBe(1);
    expect(watched).toHaveLength(1);
    watched[0]?.();
    expect(changes).toEqual(["change"]);
  });

  it("attaches the change feed after a later scan loads the source when the first load failed", async () => {
    let attempt = 0;
    const watched: Array<() => void> = [];
    const real: DiscoverySource = {
      type: "docker",
      scan: async () => EMPTY,
      watch: (onChange) => feed(watched, onChange),
    };
    const lazy = lazyDiscoverySource("docker", async () => {
      attempt += 1;
      if (attempt === 1) throw new Error("socket not there yet");
      return real;
    });
    lazy.watch?.(() => undefined);
    await expect(lazy.scan(AbortSignal.timeout(1_000))).rejects.toThrow("socket not there yet");
    expect(watched).toHaveLength(0);
    await lazy.scan(AbortSignal.timeout(1_000));
    expect(watched).toHaveLength(1);
  });
});
