import { writeFileSync } from "node:fs";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ARITHMETIC, CONTROLLABLE, type FileGateway, startFileGateway, waitFor } from "../support/gateway.js";
import { callJson, connectHttp } from "../support/mcp-client.js";
import { describePromtool, promtool } from "../support/promtool.js";

const YAML = `config_reload:
  enabled: false
mcp_servers:
  math:
    command: [node, ${JSON.stringify(ARITHMETIC)}]
  ctl:
    command: [node, ${JSON.stringify(CONTROLLABLE)}]
`;

/** The value of the one sample `series` (name and labels as exposed), or undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** Open MCP sessions over every protocol revision. */
function sessionsOpen(text: string): number {
  return text
    .split("\n")
    .filter((l) => l.startsWith("airlock_mcp_sessions_open{"))
    .reduce((sum, l) => sum + Number(l.split(" ").at(-1)), 0);
}

/**
 * A real gateway with the example servers, scraped over HTTP as Prometheus scrapes it, and the
 * scrape checked by Prometheus' own `promtool check metrics` (names, types, units, suffixes).
 */
describePromtool("GET /metrics of a running gateway, checked by promtool", () => {
  let gw: FileGateway;
  let base: string;
  let client: Client;
  const scrape = async () => {
    const response = await fetch(new URL("/metrics", base));
    expect(response.status).toBe(200);
    return response.text();
  };

  beforeAll(async () => {
    gw = await startFileGateway(YAML);
    base = await gw.app.listen({ host: "127.0.0.1", port: 0 });
    client = await connectHttp(base);
    const { json } = await callJson(client, "gateway_call", {
      calls: [
        { mcp_server: "math", tool: "add", arguments: { a: 2, b: 3 } },
        // The tool's own error result (`isError: true`): the server works, the call did not.
        { mcp_server: "math", tool: "divide", arguments: { a: 1, b: 0 } },
        { mcp_server: "math", tool: "no_such_tool", arguments: {} },
      ],
    });
    expect(json).toMatchObject({ total: 3, succeeded: 1 });
  });
  afterAll(async () => {
    await client?.close();
    await gw?.close();
  });

  it("passes promtool check metrics, with the tool_error status and the new series labelled", async () => {
    const text = await scrape();
    const checked = promtool(["check", "metrics"], text);
    expect(checked.output).toBe("");
    expect(checked.code).toBe(0);
    expect(sample(text, 'airlock_tool_calls_total{mcp_server="math",tool="add",status="success"}')).toBe(1);
    expect(
      sample(text, 'airlock_tool_calls_total{mcp_server="math",tool="divide",status="tool_error"}'),
    ).toBe(1);
    expect(text).not.toContain('tool="divide",status="success"');
    expect(text).toMatch(
      /^airlock_build_info\{version="\d+\.\d+\.\d+[^"]*"(,revision="[^"]+")?,node_version="v24\.[^"]+"\} 1$/m,
    );
    // One start, however many calls it served.
    expect(
      sample(
        text,
        'airlock_mcp_server_cold_start_duration_seconds_count{mcp_server="math",mode="subprocess"}',
      ),
    ).toBe(1);
    expect(sample(text, 'airlock_mcp_server_calls_in_flight{mcp_server="math"}')).toBe(0);
    expect(sample(text, 'airlock_mcp_server_calls_in_flight{mcp_server="ctl"}')).toBe(0);
    // The test client's session, labelled with the revision it negotiated.
    expect(text).toMatch(/^airlock_mcp_sessions_open\{protocol_version="\d{4}-\d{2}-\d{2}"\} 1$/m);
    expect(sessionsOpen(text)).toBe(1);
    expect(sample(text, 'airlock_config_reloads_total{outcome="failure"}')).toBe(0);
    expect(sample(text, "airlock_config_last_reload_successful")).toBe(1);
    expect(sample(text, "airlock_config_last_reload_success_timestamp_seconds")).toBeGreaterThan(1.7e9);
  });

  it("counts a call in flight while the server answers it, and none once it answered", async () => {
    const inFlight = async () =>
      sample(await scrape(), 'airlock_mcp_server_calls_in_flight{mcp_server="ctl"}');
    const call = callJson(client, "gateway_call", {
      calls: [{ mcp_server: "ctl", tool: "sleep", arguments: { ms: 1500 } }],
    });
    await waitFor(async () => (await inFlight()) === 1);
    const { json } = await call;
    expect(json).toMatchObject({ succeeded: 1 });
    expect(await inFlight()).toBe(0);
  });

  it("observes one cold start per start: a stop and a new start add one", async () => {
    const starts = async () =>
      sample(
        await scrape(),
        'airlock_mcp_server_cold_start_duration_seconds_count{mcp_server="math",mode="subprocess"}',
      );
    const before = (await starts()) ?? 0;
    expect((await gw.app.inject({ method: "POST", url: "/api/mcp_servers/math/stop" })).statusCode).toBe(200);
    expect((await gw.app.inject({ method: "POST", url: "/api/mcp_servers/math/start" })).statusCode).toBe(
      200,
    );
    await callJson(client, "gateway_call", {
      calls: [{ mcp_server: "math", tool: "add", arguments: { a: 1, b: 1 } }],
    });
    expect(await starts()).toBe(before + 1);
  });

  it("counts open MCP sessions up as a client connects and down as it ends its session", async () => {
    const open = async () => sessionsOpen(await scrape());
    const before = await open();
    const second = await connectHttp(base);
    expect(await open()).toBe(before + 1);
    // DELETE /mcp with the session id: the session ends on the gateway.
    await (second.transport as StreamableHTTPClientTransport).terminateSession();
    await second.close();
    expect(await open()).toBe(before);
  });

  it("counts a good reload and a refused one, and says the last one failed", async () => {
    const reload = () => gw.app.inject({ method: "POST", url: "/api/config/reload", payload: {} });
    expect((await reload()).statusCode).toBe(200);
    let text = await scrape();
    expect(sample(text, 'airlock_config_reloads_total{outcome="success"}')).toBe(1);
    expect(sample(text, "airlock_config_reload_duration_seconds_count")).toBe(1);
    expect(sample(text, "airlock_config_last_reload_successful")).toBe(1);
    writeFileSync(gw.path, `${YAML}  broken: {}\n`);
    expect((await reload()).statusCode).not.toBe(200);
    text = await scrape();
    expect(sample(text, 'airlock_config_reloads_total{outcome="success"}')).toBe(1);
    expect(sample(text, 'airlock_config_reloads_total{outcome="failure"}')).toBe(1);
    expect(sample(text, "airlock_config_last_reload_successful")).toBe(0);
    expect(promtool(["check", "metrics"], text).code).toBe(0);
  });
});
