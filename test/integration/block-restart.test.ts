import { afterAll, describe, expect, it } from "vitest";
import { ARITHMETIC, startStoredGateway, storedMathConfig } from "../support/gateway.js";

/** A JSON answer, read loosely. */
interface Body {
  [key: string]: unknown;
  error: { code: string };
}

/** A block is stored: the next process on the same file keeps the server blocked (spec 1 §3). */
describe("a blocked server on durable storage", () => {
  const { yaml, remove } = storedMathConfig("airlock-block-");
  afterAll(remove);

  type Rest = (
    method: "POST" | "DELETE",
    url: string,
    payload?: object,
  ) => Promise<{ status: number; body: Body }>;

  /** Runs `work` against a fresh gateway process on the same file, then shuts it down. */
  async function withGateway(work: (rest: Rest) => Promise<void>): Promise<void> {
    const { app, close } = await startStoredGateway(yaml);
    try {
      await work(async (method, url, payload) => {
        const response = await app.inject({ method, url, ...(payload && { payload }) });
        return { status: response.statusCode, body: response.json() as Body };
      });
    } finally {
      await close();
    }
  }

  it("stays blocked after a restart; a deleted server's block goes with it", async () => {
    await withGateway(async (rest) => {
      expect((await rest("POST", "/api/mcp_servers/math/block")).body).toEqual({
        mcp_server_id: "math",
        blocked: true,
      });
      const registered = await rest("POST", "/api/mcp_servers/", {
        mcp_server_id: "adder",
        mode: "subprocess",
        command: ["node", ARITHMETIC],
      });
      expect(registered.status).toBe(201);
      expect((await rest("POST", "/api/mcp_servers/adder/block")).status).toBe(200);
    });
    await withGateway(async (rest) => {
      for (const id of ["math", "adder"]) {
        const start = await rest("POST", `/api/mcp_servers/${id}/start`);
        expect([id, start.status, start.body.error.code]).toEqual([id, 500, "CannotStartMcpServerError"]);
      }
      expect((await rest("DELETE", "/api/mcp_servers/adder")).status).toBe(200);
      const again = await rest("POST", "/api/mcp_servers/", {
        mcp_server_id: "adder",
        mode: "subprocess",
        command: ["node", ARITHMETIC],
      });
      expect(again.status).toBe(201);
      expect((await rest("POST", "/api/mcp_servers/adder/start")).body).toMatchObject({ state: "ready" });
    });
  });
});
