import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { controllable, makeFleet } from "../support/fleet.js";
import { waitFor } from "../support/gateway.js";
import { descendants } from "../support/processes.js";

const CYCLES = 200;
const SERVERS = 4;

const openFds = () => readdirSync("/proc/self/fd").length;

describe("a soak of starts, stops and crashes", () => {
  it(`${CYCLES} cycles leave no process, file descriptor or listener behind`, {
    timeout: 180_000,
  }, async () => {
    const harness = makeFleet();
    const baseline = {
      fds: openFds(),
      exit: process.listenerCount("exit"),
      children: descendants(process.pid).length,
    };
    const ids = Array.from({ length: SERVERS }, (_, i) => `soak${i}`);
    for (const id of ids) harness.fleet.register(controllable(id));

    await Promise.all(
      ids.map(async (id, worker) => {
        const server = harness.fleet.require(id);
        for (let cycle = worker; cycle < CYCLES; cycle += SERVERS) {
          await harness.fleet.start(server, true);
          if (cycle % 3 === 0) {
            await harness.invoker
              .call(server, "crash", {}, { callId: `${cycle}`, timeoutMs: 5000 })
              .catch(() => undefined);
            await waitFor(() => server.lifecycle.state === "dead");
          } else {
            await harness.invoker.call(
              server,
              "echo",
              { message: `${cycle}` },
              { callId: `${cycle}`, timeoutMs: 5000 },
            );
            await harness.fleet.stopServer(server, "soak");
          }
        }
      }),
    );
    await harness.close();

    await waitFor(() => descendants(process.pid).length <= baseline.children, 10_000);
    expect(process.listenerCount("exit")).toBeLessThanOrEqual(baseline.exit + 1);
    await waitFor(() => openFds() <= baseline.fds + 2, 5_000);
    const starts = harness.events.filter((e) => e.type === "McpServerStarted").length;
    expect(starts).toBe(CYCLES);
  });
});
