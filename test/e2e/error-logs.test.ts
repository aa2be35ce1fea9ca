import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { type ServingGateway, serveHttp, writeTempConfig } from "../support/cli.js";
import { waitFor } from "../support/gateway.js";
import { callJson, connectHttp } from "../support/mcp-client.js";

const LEAKS_THEN_FAILS = fileURLToPath(new URL("../fixtures/servers/leaks-then-fails.mjs", import.meta.url));
/** The secret the server is given in its `env`, which it prints to stderr. */
const TOKEN = "tok-7d1e9a2c-b4f0-secret";

const yaml = (logging: string) =>
  [
    logging,
    "mcp_servers:",
    "  leaky:",
    `    command: [node, ${JSON.stringify(LEAKS_THEN_FAILS)}]`,
    `    env: {LEAKY_TOKEN: ${JSON.stringify(TOKEN)}}`,
    "  leaky_too:",
    `    command: [node, ${JSON.stringify(LEAKS_THEN_FAILS)}]`,
    `    env: {LEAKY_TOKEN: ${JSON.stringify(TOKEN)}}`,
    "",
  ].join("\n");

type LogLine = Record<string, unknown> & { msg?: string; level?: string };

/** The JSON lines the gateway wrote to stdout so far. */
function lines(gateway: ServingGateway): LogLine[] {
  return gateway
    .stdout()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as LogLine);
}

let gateway: ServingGateway | undefined;
afterEach(async () => {
  gateway?.child.kill("SIGTERM");
  await gateway?.exited;
  gateway = undefined;
});

describe("a server that fails to start", () => {
  it("answers REST with its reason in details and logs it once at ERROR, the secret it printed redacted", async () => {
    gateway = await serveHttp(writeTempConfig(yaml("")));
    const response = await fetch(`${gateway.baseUrl}/api/mcp_servers/leaky/start`, { method: "POST" });
    const text = await response.text();
    expect(response.status).toBe(500);
    expect(JSON.parse(text)).toEqual({
      error: {
        code: "CannotStartMcpServerError",
        message: "An internal server error occurred.",
        details: {
          mcp_server_id: "leaky",
          reason: "process exited with code 3 before initialize",
          exit_code: 3,
          signal: null,
          stderr: ["connecting with key [REDACTED]", "fatal: upstream refused the key"],
        },
      },
    });
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain("leaks-then-fails");

    const running = gateway;
    await waitFor(() => lines(running).some((line) => line.msg === "MCP server failed to start"), 5_000);
    const failed = lines(running).filter((line) => line.msg === "MCP server failed to start");
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({
      level: "ERROR",
      mcp_server_id: "leaky",
      mode: "subprocess",
      reason: "process exited with code 3 before initialize",
      exit_code: 3,
      stderr: ["connecting with key [REDACTED]", "fatal: upstream refused the key"],
    });
    expect(running.stdout()).not.toContain(TOKEN);
    // Off by default: no stderr line forwarded, no access log.
    expect(lines(running).some((line) => line.msg === "fatal: upstream refused the key")).toBe(false);
    expect(lines(running).some((line) => line.msg === "http request")).toBe(false);
  });

  it("answers a cold start through gateway_call with the reason and the last stderr line", async () => {
    gateway = await serveHttp(writeTempConfig(yaml("")));
    const client = await connectHttp(gateway.baseUrl);
    try {
      const { json } = await callJson(client, "gateway_call", {
        calls: [{ mcp_server: "leaky_too", tool: "anything", arguments: {} }],
      });
      expect(json.results[0]).toMatchObject({
        success: false,
        error_type: "CannotStartMcpServerError",
        error:
          "Failed to start MCP server 'leaky_too': process exited with code 3 before initialize; " +
          "stderr: fatal: upstream refused the key",
      });
      const started = await callJson(client, "gateway_start", { mcp_server: "leaky" });
      expect(started.json).toMatchObject({
        error_type: "CannotStartMcpServerError",
        details: {
          exit_code: 3,
          stderr: ["connecting with key [REDACTED]", "fatal: upstream refused the key"],
        },
      });
      expect(JSON.stringify(json) + started.text).not.toContain(TOKEN);
    } finally {
      await client.close();
    }
  });
});

describe("logging.forward_server_stderr and logging.access_log", () => {
  it("forward each stderr line labelled and redacted, and log each request by route without its query", async () => {
    gateway = await serveHttp(
      writeTempConfig(yaml("logging: {forward_server_stderr: true, access_log: true}")),
    );
    const running = gateway;
    const response = await fetch(`${running.baseUrl}/api/mcp_servers/leaky/start`, { method: "POST" });
    expect(response.status).toBe(500);
    const listed = await fetch(`${running.baseUrl}/api/mcp_servers/?state=cold&api_key=${TOKEN}`);
    expect(listed.status).toBe(200);

    await waitFor(
      () =>
        lines(running).filter((line) => line.msg === "http request").length >= 2 &&
        lines(running).some((line) => line.msg === "fatal: upstream refused the key"),
      5_000,
    );
    const forwarded = lines(running).filter((line) => line.stream === "stderr");
    expect(forwarded).toEqual([
      expect.objectContaining({
        level: "INFO",
        mcp_server_id: "leaky",
        msg: "connecting with key [REDACTED]",
      }),
      expect.objectContaining({
        level: "INFO",
        mcp_server_id: "leaky",
        msg: "fatal: upstream refused the key",
      }),
    ]);
    const requests = lines(running).filter((line) => line.msg === "http request");
    expect(requests).toEqual([
      expect.objectContaining({
        level: "INFO",
        method: "POST",
        route: "/api/mcp_servers/:id/start",
        status: 500,
        request_id: expect.any(String),
        duration_ms: expect.any(Number),
      }),
      expect.objectContaining({ method: "GET", route: "/api/mcp_servers/", status: 200 }),
    ]);
    expect(requests[0]).not.toHaveProperty("principal_id");
    expect(running.stdout()).not.toContain(TOKEN);
  });
});
