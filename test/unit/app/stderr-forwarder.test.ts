import { describe, expect, it } from "vitest";
import { ManagedServer } from "../../../src/app/fleet/managed-server.js";
import { FORWARD_RATE, StderrForwarder } from "../../../src/app/fleet/stderr-forwarder.js";
import type { Logger } from "../../../src/app/ports/logger.js";
import type { ServerSpec } from "../../../src/domain/server/server-spec.js";

const SPEC: ServerSpec = {
  id: "weather",
  mode: "subprocess",
  command: ["weather-mcp"],
  env: { WEATHER_API_KEY: "wk-0042-abcdef" },
  idle_ttl_s: 300,
  health_check_interval_s: 60,
  max_consecutive_failures: 3,
  source: "config",
};

interface Recorded {
  level: string;
  fields: Record<string, unknown>;
  message: string;
}

function setup(json: boolean) {
  const recorded: Recorded[] = [];
  const record =
    (level: string) =>
    (fields: Record<string, unknown>, message: string): void => {
      recorded.push({ level, fields, message });
    };
  const logger: Logger = {
    debug: record("debug"),
    info: record("info"),
    warn: record("warn"),
    error: record("error"),
  };
  const clock = { ms: 0, now: () => 0, monotonic: () => clock.ms };
  const server = new ManagedServer(SPEC, () => 0, 10);
  new StderrForwarder({ logger, clock, json }).attach(server);
  return { recorded, clock, server };
}

describe("StderrForwarder", () => {
  it("writes each stderr line at INFO with the server's id, redacted, and skips stdout and gateway notes", () => {
    const { recorded, server } = setup(true);
    server.logs.append("stderr", "using key wk-0042-abcdef");
    server.logs.append("stdout", "not protocol");
    server.logs.append("stderr", "[airlock] start failed: x");
    expect(recorded).toEqual([
      {
        level: "info",
        fields: { mcp_server_id: "weather", stream: "stderr" },
        message: "using key [REDACTED]",
      },
    ]);
    // The server's own log keeps the line as written.
    expect(server.logs.tail(1)[0]?.content).toBe("[airlock] start failed: x");
  });

  it("prefixes the line with the server's id in readable logs", () => {
    const { recorded, server } = setup(false);
    server.logs.append("stderr", "listening");
    expect(recorded).toEqual([{ level: "info", fields: {}, message: "[weather] listening" }]);
  });

  it("drops lines beyond the rate and says how many before the next line it forwards", () => {
    const { recorded, server, clock } = setup(true);
    const sent = FORWARD_RATE.burst + 5;
    for (let i = 0; i < sent; i++) server.logs.append("stderr", `line ${i}`);
    expect(recorded).toHaveLength(FORWARD_RATE.burst);
    clock.ms += 1_000;
    server.logs.append("stderr", "after a second");
    expect(recorded.slice(-2)).toEqual([
      {
        level: "warn",
        fields: { mcp_server_id: "weather", dropped: 5 },
        message: "MCP server stderr lines dropped: more than the forwarding rate",
      },
      { level: "info", fields: { mcp_server_id: "weather", stream: "stderr" }, message: "after a second" },
    ]);
  });
});
