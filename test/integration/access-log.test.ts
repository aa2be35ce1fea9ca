import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { createGateway, type Gateway } from "../../src/composition/create-gateway.js";
import { memoryStorage } from "../../src/composition/open-storage.js";
import { parseConfig } from "../../src/config/load.js";
import { createApiKey } from "../support/api-keys.js";

let opened: { gateway: Gateway; close: () => Promise<void> } | undefined;
afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

/** A gateway with authentication on whose log lines (JSON) are kept in memory. */
async function gatewayLogging(logging: string) {
  const { config, env } = parseConfig(`auth: {enabled: true}\n${logging}\nmcp_servers: {}\n`, {
    env: { PATH: process.env.PATH },
  });
  const written: Record<string, unknown>[] = [];
  const logger = pino({ level: "info" }, { write: (line: string) => written.push(JSON.parse(line)) });
  const gateway = await createGateway({
    config,
    env,
    logger,
    instanceLabel: "test",
    storage: memoryStorage(),
  });
  const app = await gateway.http();
  opened = {
    gateway,
    close: async () => {
      await app.close();
      await gateway.shutdown();
    },
  };
  const requests = () => written.filter((line) => line.msg === "http request");
  return { gateway, app, requests };
}

describe("the access log", () => {
  it("names the authenticated principal and the route, and never the key or the query", async () => {
    const { gateway, app, requests } = await gatewayLogging("logging: {access_log: true}");
    const key = await createApiKey({ gateway }, "ops-bot");
    const listed = await app.inject({
      method: "GET",
      url: "/api/mcp_servers/?token=query-secret-value",
      headers: { "x-api-key": key },
    });
    // Authenticated, with no role granted: refused, and still named.
    expect(listed.statusCode).toBe(403);
    const refused = await app.inject({ method: "GET", url: "/api/mcp_servers/" });
    expect(refused.statusCode).toBe(401);
    expect(requests()).toEqual([
      expect.objectContaining({
        method: "GET",
        route: "/api/mcp_servers/",
        status: 403,
        principal_id: "ops-bot",
        client_address: "127.0.0.1",
      }),
      expect.objectContaining({ method: "GET", route: "/api/mcp_servers/", status: 401 }),
    ]);
    expect(requests()[1]).not.toHaveProperty("principal_id");
    expect(JSON.stringify(requests())).not.toMatch(/query-secret-value|mcp_ops-bot/);
  });

  it("writes nothing when off", async () => {
    const { app, requests } = await gatewayLogging("");
    expect((await app.inject({ method: "GET", url: "/health/live" })).statusCode).toBe(200);
    expect(requests()).toEqual([]);
  });
});
