import { resolve } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { SqlStore } from "../../src/adapters/store/sql-store.js";
import { createApiKey } from "../support/api-keys.js";
import { describePostgres, freshPostgres } from "../support/backends.js";
import { waitFor } from "../support/gateway.js";
import {
  type Replica,
  type RoundRobin,
  roundRobin,
  startReplicas,
  stopReplicas,
} from "../support/replicas.js";

const FIXTURE = resolve("test/fixtures/conformance-dual-era.mjs");

const YAML = `
tool_access: {mode: front_door}
auth:
  enabled: true
  role_assignments:
    - {principal: alice, role: service-account}
mcp_servers:
  fixture:
    command: [node, ${JSON.stringify(FIXTURE)}, stdio]
`;

/**
 * A 2026-07-28 client's `input_required` rounds behind a round-robin proxy: each retry lands on
 * another replica than the round before, which verifies the state with the key the replicas share
 * in PostgreSQL and runs the request again, answering its upstream from the answers the state carries.
 */
await describePostgres("input_required retries across replicas sharing PostgreSQL", () => {
  let store: SqlStore<unknown>;
  const replicas: Replica[] = [];
  let proxy: RoundRobin;
  let key: string;

  beforeAll(async () => {
    store = await freshPostgres();
    replicas.push(...(await startReplicas(YAML, 2, store)));
    for (const replica of replicas) replica.gateway.startBackground();
    key = await createApiKey(replicas[0] as Replica, "alice");
    proxy = await roundRobin(replicas.map((replica) => replica.base));
  }, 60_000);

  afterAll(async () => {
    await proxy?.close();
    await stopReplicas(replicas);
    await store?.close();
  });

  it("completes a request of two rounds whose retries alternate replicas", async () => {
    const client = new Client(
      { name: "replica-input-required", version: "1.0.0" },
      { versionNegotiation: { mode: "auto" }, capabilities: { elicitation: {} } },
    );
    const asked: string[] = [];
    client.setRequestHandler("elicitation/create", async (request) => {
      asked.push(String(request.params.message));
      const content: Record<string, string> = asked.length === 1 ? { name: "Ada" } : { color: "teal" };
      return { action: "accept", content };
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL("/mcp", proxy.base), {
        requestInit: { headers: { "x-api-key": key } },
      }),
    );
    try {
      // Both replicas project the fixture's tools before the rounds begin.
      await waitFor(async () => {
        const [first, second] = await Promise.all([client.listTools(), client.listTools()]);
        const named = (listing: typeof first) =>
          listing.tools.some((tool) => tool.name === "test_simple_text");
        return named(first) && named(second);
      }, 20_000);
      const before = [...proxy.hits];
      const result = await client.callTool({ name: "test_input_required_result_multi_round", arguments: {} });
      const text = (result.content as { text?: string }[]).map((block) => block.text).join("");
      expect(text).toBe("Hello Ada, your favourite colour is teal");
      expect(asked).toEqual(["Step 1: What is your name?", "Step 2: What is your favorite color?"]);
      // Three requests (the call and two retries), spread over both replicas.
      expect(proxy.hits.map((n, index) => n - (before[index] ?? 0)).every((n) => n >= 1)).toBe(true);
    } finally {
      await client.close();
    }
  }, 60_000);
});
