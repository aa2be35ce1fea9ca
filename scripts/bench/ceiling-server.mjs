#!/usr/bin/env node
// The ceiling: a streamable-HTTP JSON-RPC answerer with no SDK and no logic. It answers
// `initialize` with a session id, `tools/list` with the echo tool, `tools/call` with the echo of
// `text`, anything else with an empty result, notifications with 202 and DELETE with 200. Nothing
// is checked, so only the client bounds the rate it reaches.
//
//   node scripts/bench/ceiling-server.mjs [PORT]   prints `listening <url>` on stdout
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";

const TOOLS = [
  {
    name: "echo",
    description: "Answers its text argument.",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  },
];

function result(request) {
  switch (request.method) {
    case "initialize":
      return {
        protocolVersion: request.params?.protocolVersion ?? "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: "bench-ceiling", version: "1.0.0" },
      };
    case "tools/list":
      return { tools: TOOLS };
    case "tools/call":
      return { content: [{ type: "text", text: String(request.params?.arguments?.text ?? "") }] };
    default:
      return {};
  }
}

const server = createServer((req, res) => {
  if (req.method === "DELETE") {
    res.writeHead(200).end();
    return;
  }
  if (req.method !== "POST") {
    res.writeHead(405).end();
    return;
  }
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => {
    const request = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    if (request.id === undefined) {
      res.writeHead(202).end();
      return;
    }
    const headers = { "content-type": "application/json" };
    if (request.method === "initialize") headers["mcp-session-id"] = randomUUID();
    res.writeHead(200, headers);
    res.end(JSON.stringify({ jsonrpc: "2.0", id: request.id, result: result(request) }));
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.argv[2] ?? 0), "127.0.0.1", () => {
  console.log(`listening http://127.0.0.1:${server.address().port}/mcp`);
});
