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
});
