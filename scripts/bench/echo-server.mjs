#!/usr/bin/env node
// The benchmark's upstream: a minimal MCP server built on the SDK with an `echo` tool (answers its
// `text` argument) and a `secret` tool, which the gateway's tool policy hides. It does no work of
// its own, so the figures measure what sits in front of it.
//
//   node scripts/bench/echo-server.mjs              stdio
//   node scripts/bench/echo-server.mjs --http PORT  streamable HTTP on 127.0.0.1:PORT/mcp (0: any
//                                                   free port; the address is printed as
//                                                   `listening <url>` on stdout)
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

function echoServer() {
  const server = new McpServer({ name: "bench-echo", version: "1.0.0" });
  server.registerTool(
    "echo",
    { description: "Answers its text argument.", inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: "text", text }] }),
  );
  server.registerTool(
    "secret",
    { description: "Refused by the benchmark's tool policy.", inputSchema: {} },
    async () => ({ content: [{ type: "text", text: "secret" }] }),
  );
  return server;
}

/** Streamable HTTP, stateful: one SDK server and transport per session, as the SDK's examples do. */
async function serveHttp(port) {
  const sessions = new Map();
  const http = createServer(async (req, res) => {
    if (new URL(req.url ?? "/", "http://x").pathname !== "/mcp") {
      res.writeHead(404).end();
      return;
    }
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : undefined;
    const id = req.headers["mcp-session-id"];
    let transport = typeof id === "string" ? sessions.get(id) : undefined;
    if (!transport && req.method === "POST" && isInitializeRequest(body)) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: true,
        onsessioninitialized: (sessionId) => sessions.set(sessionId, transport),
      });
      transport.onclose = () => sessions.delete(transport.sessionId);
      await echoServer().connect(transport);
    }
    if (!transport) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(
        JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }),
      );
      return;
    }
    await transport.handleRequest(req, res, body);
  });
  http.keepAliveTimeout = 60_000;
  await new Promise((resolve) => http.listen(port, "127.0.0.1", resolve));
  console.log(`listening http://127.0.0.1:${http.address().port}/mcp`);
}

const httpAt = process.argv.indexOf("--http");
if (httpAt >= 0) {
  await serveHttp(Number(process.argv[httpAt + 1] ?? 0));
} else {
  await echoServer().connect(new StdioServerTransport());
}
