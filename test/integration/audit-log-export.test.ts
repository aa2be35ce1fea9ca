import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterEach, describe, expect, it } from "vitest";
import { ARITHMETIC, startTestGateway, type TestGateway, waitFor } from "../support/gateway.js";
import { callJson, connectHttp } from "../support/mcp-client.js";
import {
  type CollectedLogRecord,
  type OtlpCollector,
  startOtlpCollector,
} from "../support/otlp-collector.js";

function yaml(audit: string): string {
  return `
mcp_servers:
  math:
    command: [node, ${JSON.stringify(ARITHMETIC)}]
    tools: {deny_list: [divide]}
observability:
  tracing: {enabled: false}
  audit:
${audit}
`;
}

let collector: OtlpCollector | undefined;
let gateway: TestGateway | undefined;
let client: Client | undefined;

afterEach(async () => {
  await client?.close();
  await gateway?.close();
  await collector?.close();
  client = undefined;
  gateway = undefined;
  collector = undefined;
});

async function boot(audit: string): Promise<Client> {
  collector = await startOtlpCollector();
  gateway = await startTestGateway(yaml(audit.replaceAll("COLLECTOR", collector.endpoint)));
  client = await connectHttp(await gateway.app.listen({ host: "127.0.0.1", port: 0 }));
  return client;
}

async function call(tool: string): Promise<void> {
  if (!client) throw new Error("not booted");
  await callJson(client, "gateway_call", {
    calls: [{ mcp_server: "math", tool, arguments: { a: 6, b: 3 } }],
  });
}

function recordOf(logs: CollectedLogRecord[], tool: string): CollectedLogRecord {
  const found = logs.filter((record) => record.attributes["mcp.tool.name"] === tool);
  expect(found).toHaveLength(1);
  return found[0] as CollectedLogRecord;
}

describe("observability.audit: audit records exported as OTLP logs", () => {
  it("posts one log record per tool invocation to <endpoint>/v1/logs, with its fields as attributes", async () => {
    const before = BigInt(Date.now()) * 1_000_000n;
    await boot("    otlp_endpoint: COLLECTOR");
    await call("add");
    await call("divide");
    const logs = () => collector?.logs ?? [];
    await waitFor(() => logs().length >= 2, 10_000);

    expect(collector?.requests.every((request) => request.path === "/v1/logs")).toBe(true);
    const added = recordOf(logs(), "add");
    expect(added).toMatchObject({
      severityNumber: 9,
      severityText: "INFO",
      body: "tool_invocation success",
      scope: "airlock.audit",
      resource: { "service.name": "airlock", "service.version": expect.any(String) },
      attributes: {
        "audit.action": "tool_invocation",
        "audit.actor": "anonymous",
        "audit.target": "math",
        "audit.outcome": "success",
        "mcp.server.id": "math",
        "mcp.tool.status": "success",
      },
    });
    expect(typeof added.attributes["audit.id"]).toBe("string");
    expect(typeof added.resource["service.instance.id"]).toBe("string");
    // Nanoseconds as a decimal string, from the call's own time; durations as integers.
    const time = BigInt(added.timeUnixNano);
    expect(time >= before && time <= BigInt(Date.now()) * 1_000_000n).toBe(true);
    const duration = added.rawAttributes.find((entry) => entry.key === "duration_ms");
    // An integer (the OTLP JSON encoding allows the number or its decimal string).
    expect(Object.keys(duration?.value ?? {})).toEqual(["intValue"]);
    expect(String(duration?.value.intValue)).toMatch(/^\d+$/);

    const denied = recordOf(logs(), "divide");
    expect(denied).toMatchObject({
      severityNumber: 13,
      severityText: "WARN",
      body: "tool_invocation denied",
      attributes: { "audit.outcome": "denied", error_type: "ToolAccessDeniedError" },
    });
  });

  it("keeps the records a collector refused and sends them with the next write", async () => {
    await boot("    otlp_endpoint: COLLECTOR");
    // A 400 is not retried by the exporter (a 429 or 5xx is, within the write's 10 s).
    collector?.refusals.push(400);
    await call("add");
    await waitFor(() => (collector?.requests.length ?? 0) >= 1, 10_000);
    expect(collector?.logs).toEqual([]);
    await call("multiply");
    await waitFor(() => (collector?.logs.length ?? 0) >= 2, 10_000);
    expect(collector?.logs.map((record) => record.attributes["mcp.tool.name"])).toEqual(["add", "multiply"]);
  });

  it("sends the credentials of the endpoint's URL as basic authentication", async () => {
    collector = await startOtlpCollector();
    const endpoint = collector.endpoint.replace("http://", "http://audit:s%40cret@");
    gateway = await startTestGateway(yaml(`    otlp_endpoint: ${endpoint}`));
    client = await connectHttp(await gateway.app.listen({ host: "127.0.0.1", port: 0 }));
    await call("add");
    await waitFor(() => (collector?.logs.length ?? 0) >= 1, 10_000);
    expect(collector.requests[0]?.headers.authorization).toBe(
      `Basic ${Buffer.from("audit:s@cret").toString("base64")}`,
    );
  });

  it("exports nothing when disabled, even with an endpoint", async () => {
    await boot("    enabled: false\n    otlp_endpoint: COLLECTOR");
    await call("add");
    await gateway?.close();
    gateway = undefined;
    expect(collector?.requests).toEqual([]);
  });
});
