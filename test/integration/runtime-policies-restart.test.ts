import { afterAll, describe, expect, it } from "vitest";
import { startStoredGateway, storedMathConfig } from "../support/gateway.js";
import { callJson, connectHttp } from "../support/mcp-client.js";

interface CallResult {
  success: boolean;
  error_type: string | null;
}

/**
 * Runtime withdrawals and the agent policy on durable storage are kept by the store: the next
 * process on the same file enforces them.
 */
describe("runtime withdrawals and the agent policy on durable storage", () => {
  const { yaml, remove } = storedMathConfig("airlock-runtime-policies-");
  afterAll(remove);

  /** Runs `work` against a fresh gateway process on the same file, then shuts it down. */
  async function withGateway(
    work: (
      rest: (url: string, payload: unknown) => Promise<unknown>,
      call: () => Promise<string>,
    ) => Promise<void>,
  ): Promise<void> {
    const { app, close } = await startStoredGateway(yaml);
    const url = await app.listen({ host: "127.0.0.1", port: 0 });
    const client = await connectHttp(url);
    try {
      await work(
        async (route, payload) =>
          (await app.inject({ method: "POST", url: route, payload: payload as object })).json(),
        async () => {
          const { json } = await callJson(client, "gateway_call", {
            calls: [{ mcp_server: "math", tool: "add", arguments: { a: 1, b: 2 } }],
          });
          const [result] = json.results as CallResult[];
          return result?.success ? "ok" : String(result?.error_type);
        },
      );
    } finally {
      await client.close();
      await close();
    }
  }

  it("keep a withdrawal across a restart, and so its restore", async () => {
    await withGateway(async (rest, call) => {
      expect(await rest("/api/admin/tools/math/add/withdraw", {})).toMatchObject({ withdrawn: true });
      expect(await call()).toBe("ToolWithdrawnError");
    });
    await withGateway(async (rest, call) => {
      expect(await call()).toBe("ToolWithdrawnError");
      expect(await rest("/api/admin/tools/math/add/restore", {})).toMatchObject({ restored: true });
      expect(await call()).toBe("ok");
    });
    await withGateway(async (_rest, call) => {
      expect(await call()).toBe("ok");
    });
  });

  it("keep the agent policy across a restart, with its version rule", async () => {
    const agentPush = (version: number, action: string) => ({
      version,
      tool_policies: [{ mcp_server_id: "math", action, tool_name: "add" }],
    });
    await withGateway(async (rest, call) => {
      expect(await rest("/api/agent/policy", agentPush(2, "deny"))).toMatchObject({
        status: "ok",
        version: 2,
      });
      expect(await call()).toBe("ToolAccessDeniedError");
    });
    await withGateway(async (rest, call) => {
      expect(await call()).toBe("ToolAccessDeniedError");
      expect(await rest("/api/agent/policy", agentPush(1, "allow"))).toMatchObject({
        error: "stale_version",
        version: 2,
      });
      expect(await rest("/api/agent/policy", { version: 3, tool_policies: [] })).toMatchObject({
        version: 3,
      });
      expect(await call()).toBe("ok");
    });
  });
});
