#!/usr/bin/env node
// The REST reference: a bare fastify server whose `GET /api/system/` answers a constant object of
// the shape Airlock answers, with no authentication and no logic. Prints `listening <url>`.
import Fastify from "fastify";

const SYSTEM = {
  system: {
    total_mcp_servers: 1,
    mcp_servers_by_state: { ready: 1 },
    total_tools: 2,
    total_invocations: 0,
    total_failures: 0,
    overall_success_rate: 1,
    uptime_seconds: 1,
    version: "0.1.0",
  },
};

const app = Fastify({ logger: false });
app.get("/api/system/", async () => SYSTEM);
const address = await app.listen({ host: "127.0.0.1", port: 0 });
console.log(`listening ${address}`);
