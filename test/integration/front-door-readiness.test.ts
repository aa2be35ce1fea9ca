import { describe, expect, it } from "vitest";
import { ARITHMETIC, FAILS_TO_START, startTestGateway, waitFor } from "../support/gateway.js";

const yaml = (required: string[], retryForS: number) => `
tool_access:
  mode: front_door
  required_catalogue:
    servers: ${JSON.stringify(required)}
    retry_for_s: ${retryForS}
mcp_servers:
  math:
    command: [node, ${JSON.stringify(ARITHMETIC)}]
  broken:
    command: [node, ${JSON.stringify(FAILS_TO_START)}]
  pool:
    mode: group
    members:
      - id: pool-a
        command: [node, ${JSON.stringify(ARITHMETIC)}]
`;

async function ready(app: Awaited<ReturnType<typeof startTestGateway>>["app"]) {
  const response = await app.inject({ method: "GET", url: "/health/ready" });
  return { status: response.statusCode, body: response.json() };
}

describe("tool_access.required_catalogue", () => {
  it("holds /health/ready at 503 until every listed server (a group by any member) was projected", async () => {
    const gw = await startTestGateway(yaml(["math", "pool"], 600));
    try {
      const before = await ready(gw.app);
      expect(before.status).toBe(503);
      expect(JSON.stringify(before.body)).toContain("math");
      gw.gateway.startBackground();
      await waitFor(async () => (await ready(gw.app)).status === 200, 20_000);
    } finally {
      await gw.close();
    }
  });

  it("stops holding once the window ends, even if a listed server never projects", async () => {
    const gw = await startTestGateway(yaml(["broken"], 1.5));
    try {
      gw.gateway.startBackground();
      const held = await ready(gw.app);
      expect(held.status).toBe(503);
      expect(JSON.stringify(held.body)).toContain("broken");
      await waitFor(async () => (await ready(gw.app)).status === 200, 10_000);
    } finally {
      await gw.close();
    }
  });
});
