import { spawn } from "node:child_process";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, expect, it } from "vitest";
import { CLI, writeTempConfig } from "../support/cli.js";
import { fleetYaml, waitFor } from "../support/gateway.js";
import { callJson, connect, type ToolResult } from "../support/mcp-client.js";

describe("airlock serve --stdio", () => {
  it("serves the management tools to an MCP client on stdin/stdout", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "serve", "--stdio", "--config", writeTempConfig(fleetYaml())],
      stderr: "pipe",
    });
    const client = await connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain("gateway_call");
      const list = await callJson(client, "gateway_list");
      expect(list.json.mcp_servers).toHaveLength(4);
      const call = await callJson(client, "gateway_call", {
        calls: [{ mcp_server: "text", tool: "reverse", arguments: { text: "abc" } }],
      });
      expect(call.json.results[0].result.content[0].text).toContain("cba");
      const stop = await callJson(client, "gateway_stop", { mcp_server: "text" });
      expect(stop.json).toEqual({ stopped: "text", reason: "user_request" });
    } finally {
      await client.close();
    }
  });

  it("answers a line that is not JSON with -32700 and one that is no JSON-RPC message with -32600", async () => {
    const child = spawn(
      process.execPath,
      [CLI, "serve", "--stdio", "--config", writeTempConfig(fleetYaml())],
      {
        stdio: ["pipe", "pipe", "ignore"],
      },
    );
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
    });
    try {
      child.stdin.write("this is not json\n");
      child.stdin.write('{"foo":1}\n');
      child.stdin.write('{"jsonrpc":"2.0","id":8,"method":"ping"}\n');
      await waitFor(() => out.includes('"id":8'), 15_000);
      const answers = out
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      expect(answers).toEqual([
        { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } },
        { jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid Request" } },
        { jsonrpc: "2.0", id: 8, result: {} },
      ]);
    } finally {
      child.kill("SIGTERM");
    }
  });

  it("answers an oversized line with -32600 and goes on; a readable id is kept in the answer", async () => {
    const { child, answers } = spawnRaw();
    try {
      child.stdin.write(
        `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${"y".repeat(11 * 1024 * 1024)}"}}\n`,
      );
      child.stdin.write('{"jsonrpc":"1.0","id":5,"method":"ping"}\n');
      child.stdin.write('{"jsonrpc":"2.0","id":8,"method":"ping"}\n');
      await waitFor(() => answers().some((a) => a.id === 8), 15_000);
      expect(answers()).toEqual([
        {
          jsonrpc: "2.0",
          id: null,
          error: { code: -32600, message: "Invalid Request: a message must not exceed 10485760 bytes" },
        },
        { jsonrpc: "2.0", id: 5, error: { code: -32600, message: "Invalid Request" } },
        { jsonrpc: "2.0", id: 8, result: {} },
      ]);
    } finally {
      child.kill("SIGTERM");
    }
  });

  it("refuses a message nested deeper than http.max_json_depth with -32600 and its id, and goes on", async () => {
    const { child, answers } = spawnRaw(writeTempConfig(`http: {max_json_depth: 10}\n${fleetYaml()}`));
    // Message, params, arguments, calls, the call, its arguments: 6 levels before the arrays.
    const call = (id: number, levels: number) =>
      `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"gateway_call","arguments":{"calls":[{"mcp_server":"math","tool":"add","arguments":{"a":1,"b":2,"x":${"[".repeat(levels)}${"]".repeat(levels)}}}]}}}\n`;
    try {
      child.stdin.write(`${JSON.stringify(initialize)}\n`);
      child.stdin.write(call(21, 5));
      child.stdin.write('{"jsonrpc":"2.0","id":22,"method":"ping"}\n');
      await waitFor(() => answers().some((a) => a.id === 22), 15_000);
      expect(answers().find((a) => a.id === 21)).toEqual({
        jsonrpc: "2.0",
        id: 21,
        error: {
          code: -32600,
          message: "Invalid Request: message has nesting deeper than 10 levels (http.max_json_depth)",
        },
      });
      expect(answers().find((a) => a.id === 22)).toEqual({ jsonrpc: "2.0", id: 22, result: {} });
    } finally {
      child.kill("SIGTERM");
    }
  });

  it("answers params the method's schema refuses with -32602 naming the field", async () => {
    const { child, answers } = spawnRaw();
    try {
      child.stdin.write(`${JSON.stringify(initialize)}\n`);
      child.stdin.write('{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{}}\n');
      await waitFor(() => answers().some((a) => a.id === 12), 15_000);
      expect(answers().find((a) => a.id === 12)).toEqual({
        jsonrpc: "2.0",
        id: 12,
        error: {
          code: -32602,
          message: "Invalid params: name: Invalid input: expected string, received undefined",
        },
      });
    } finally {
      child.kill("SIGTERM");
    }
  });

  it("lets a request in flight finish on SIGTERM, then exits 0", async () => {
    const { child, answers, exited } = spawnRaw();
    child.stdin.write(`${JSON.stringify(initialize)}\n`);
    // The gateway is up and reading before the call goes out.
    await waitFor(() => answers().some((a) => a.id === 1), 15_000);
    child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    const call = { mcp_server: "ctl", tool: "sleep", arguments: { ms: 1500 } };
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "gateway_call", arguments: { calls: [call] } } })}\n`,
    );
    // Once the upstream is running the call (its start takes a moment), the gateway is told to stop.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    child.kill("SIGTERM");
    expect(await exited).toEqual({ code: 0, signal: null });
    const answer = answers().find((a) => a.id === 2) as { result: ToolResult } | undefined;
    expect(JSON.parse(answer?.result.content[0]?.text ?? "{}").results[0]).toMatchObject({ success: true });
  });

  it("shuts down cleanly, exit 0, when the client stops reading stdout", async () => {
    const { child, exited } = spawnRaw();
    child.stdout.destroy();
    for (let id = 1; id <= 5; id++) child.stdin.write(`{"jsonrpc":"2.0","id":${id},"method":"ping"}\n`);
    expect(await exited).toEqual({ code: 0, signal: null });
  });

  it("sends the front door's client nothing before its initialize", async () => {
    const config = writeTempConfig(`tool_access: {mode: front_door}\n${fleetYaml()}`);
    const { child, answers } = spawnRaw(config);
    try {
      // The upstreams are projected (and the listing changes) while the client has not spoken yet.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      child.stdin.write(`${JSON.stringify(initialize)}\n`);
      await waitFor(() => answers().some((a) => a.id === 1), 15_000);
      expect(answers()[0]).toMatchObject({ id: 1, result: { protocolVersion: "2025-06-18" } });
    } finally {
      child.kill("SIGTERM");
    }
  });

  it("serves the front door on stdin/stdout: upstream tools by name, no gateway_call", async () => {
    const yaml = `tool_access:\n  mode: front_door\n${fleetYaml()}`;
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "serve", "--stdio", "--config", writeTempConfig(yaml)],
      stderr: "pipe",
    });
    const client = await connect(transport);
    try {
      expect(client.getServerCapabilities()?.tools?.listChanged).toBe(true);
      let names: string[] = [];
      await waitFor(async () => {
        names = (await client.listTools()).tools.map((t) => t.name);
        return names.includes("reverse") && names.includes("add");
      }, 20_000);
      expect(names).not.toContain("gateway_call");
      expect(names).toContain("gateway_list");
      const result = await client.callTool({ name: "reverse", arguments: { text: "abc" } });
      expect((result as ToolResult).content[0]?.text).toContain("cba");
    } finally {
      await client.close();
    }
  });

  const authYaml = (extra: string) => `auth:\n  enabled: true\n${extra}${fleetYaml()}`;
  const serveStdio = async (yaml: string) =>
    connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, "serve", "--stdio", "--config", writeTempConfig(yaml)],
        stderr: "pipe",
      }),
    );

  it("with auth on and no stdio principal: egress lists all tools and refuses each one", async () => {
    // allow_anonymous admits anonymous HTTP callers; a stdio client without a principal is no one.
    for (const extra of ["", "  allow_anonymous: true\n"]) {
      const client = await serveStdio(authYaml(extra));
      try {
        expect((await client.listTools()).tools).toHaveLength(22);
        const result = (await client.callTool({ name: "gateway_list", arguments: {} })) as ToolResult;
        expect(result).toMatchObject({
          isError: true,
          content: [{ type: "text", text: "Authentication required to call 'gateway_list'" }],
        });
      } finally {
        await client.close();
      }
    }
  });

  it("with auth on: the front door serves nothing without a principal, a viewer's nine with one", async () => {
    const frontDoor = "tool_access:\n  mode: front_door\n";
    const anonymous = await serveStdio(frontDoor + authYaml(""));
    try {
      expect((await anonymous.listTools()).tools).toEqual([]);
    } finally {
      await anonymous.close();
    }
    const viewer = await serveStdio(
      frontDoor + authYaml("  stdio:\n    principal: {id: desk, tenant_id: t1, roles: [viewer]}\n"),
    );
    try {
      const names = (await viewer.listTools()).tools.map((t) => t.name);
      expect(names).toHaveLength(9);
      expect(names).toContain("gateway_sources");
      const status = (await viewer.callTool({ name: "gateway_status", arguments: {} })) as ToolResult;
      expect(status.isError).not.toBe(true);
      // Without tool:invoke the declared listings are empty rather than refused.
      expect((await viewer.listResources()).resources).toEqual([]);
      expect((await viewer.listPrompts()).prompts).toEqual([]);
      const read = await viewer.readResource({ uri: "x://y" }).catch((e: { code?: number }) => e.code);
      expect(read).toBe(-32601);
    } finally {
      await viewer.close();
    }
  });
});

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

/** The gateway over stdio, driven line by line: what it answered so far, and how it exited. */
function spawnRaw(config = writeTempConfig(fleetYaml())) {
  const child = spawn(process.execPath, [CLI, "serve", "--stdio", "--config", config], {
    stdio: ["pipe", "pipe", "ignore"],
  });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString("utf8");
  });
  child.stdin.on("error", () => {});
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const answers = () =>
    out
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as { id?: unknown });
  return { child, answers, exited };
}
