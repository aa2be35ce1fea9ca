/**
 * Caps on open MCP sessions (`http.mcp_sessions`), counted per replica: per principal and per
 * tenant with authentication on, replica-wide always; at a cap a new session answers 429 and no
 * other session is evicted; a session that ends frees its slot; a session rebuilt from the store
 * counts too, and a refusal leaves it open. Caps are set small here; the defaults are 64, 512, 10,000.
 */
import type { FastifyInstance } from "fastify";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryEventStore } from "../../src/adapters/store/memory/memory-event-store.js";
import { memoryRepositories } from "../../src/adapters/store/memory/memory-repositories.js";
import { createGateway, type Gateway } from "../../src/composition/create-gateway.js";
import { memoryStorage, type Storage } from "../../src/composition/open-storage.js";
import { parseConfig } from "../../src/config/load.js";
import { createApiKey } from "../support/api-keys.js";
import { ARITHMETIC } from "../support/gateway.js";
import { rawInitialize, rawMcpPost } from "../support/mcp-client.js";

interface Running {
  gateway: Gateway;
  app: FastifyInstance;
  base: string;
}

const opened: Running[] = [];

async function start(yaml: string, storage: Storage = memoryStorage()): Promise<Running> {
  const { config, env } = parseConfig(
    `${yaml}
mcp_servers:
  math:
    command: [node, ${JSON.stringify(ARITHMETIC)}]
`,
    { env: { PATH: process.env.PATH } },
  );
  const gateway = await createGateway({
    config,
    env,
    logger: pino({ level: "silent" }),
    instanceLabel: "test",
    storage,
  });
  const app = await gateway.http();
  const running = { gateway, app, base: await app.listen({ host: "127.0.0.1", port: 0 }) };
  opened.push(running);
  return running;
}

afterAll(async () => {
  for (const { app, gateway } of opened) {
    await app.close();
    await gateway.shutdown();
  }
});

const AUTH = `
auth:
  enabled: true
  allow_anonymous: true
  rate_limit: {max_attempts: 1000, window_seconds: 60, lockout_seconds: 30}
`;

const headersOf = (apiKey: string | null): Record<string, string> =>
  apiKey === null ? {} : { "x-api-key": apiKey };

/** Opens a session: its id on 200, else the refusal's status and body. */
async function open(base: string, apiKey: string | null) {
  const answer = await rawInitialize(base, headersOf(apiKey));
  const body = (await answer.json()) as Record<string, unknown>;
  return { status: answer.status, id: answer.headers.get("mcp-session-id") ?? "", body };
}

/** Whether session `id` still answers `tools/list`. */
async function works(base: string, apiKey: string | null, id: string): Promise<boolean> {
  const answer = await rawMcpPost(
    base,
    id,
    { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} },
    headersOf(apiKey),
  );
  const body = (await answer.json()) as { result?: { tools: unknown[] } };
  return answer.status === 200 && Array.isArray(body.result?.tools);
}

async function end(base: string, apiKey: string | null, id: string): Promise<number> {
  const answer = await fetch(new URL("/mcp", base), {
    method: "DELETE",
    headers: { ...headersOf(apiKey), "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" },
  });
  await answer.text();
  return answer.status;
}

describe("session caps with authentication on", () => {
  let gw: Running;
  const keys: Record<string, string> = {};

  beforeAll(async () => {
    gw = await start(
      `${AUTH}http: {mcp_sessions: {max_per_principal: 3, max_per_tenant: 4, max_sessions: 100}}`,
    );
    keys.alice = await createApiKey(gw, "alice");
    keys.bob = await createApiKey(gw, "bob");
    keys.t1a = await createApiKey(gw, "t1a", { tenant: "t1" });
    keys.t1b = await createApiKey(gw, "t1b", { tenant: "t1" });
    keys.t2 = await createApiKey(gw, "t2a", { tenant: "t2" });
  });

  it("refuses one principal past its cap while another principal's sessions keep working", async () => {
    const bobs = [await open(gw.base, keys.bob ?? ""), await open(gw.base, keys.bob ?? "")];
    expect(bobs.map((s) => s.status)).toEqual([200, 200]);
    const alices: string[] = [];
    let refusal: Awaited<ReturnType<typeof open>> | undefined;
    for (let i = 0; i < 10 && !refusal; i++) {
      const session = await open(gw.base, keys.alice ?? "");
      if (session.status === 200) alices.push(session.id);
      else refusal = session;
    }
    expect(alices).toHaveLength(3);
    expect(refusal?.status).toBe(429);
    expect(refusal?.body).toEqual({
      jsonrpc: "2.0",
      id: 1,
      error: {
        code: -32000,
        message: expect.stringContaining(
          "at most 3 per principal on this replica (http.mcp_sessions.max_per_principal)",
        ),
        data: {
          error_type: "SessionLimitExceeded",
          details: { cap: "http.mcp_sessions.max_per_principal", limit: 3 },
        },
      },
    });
    // Nobody was evicted: every session opened before still answers.
    for (const bob of bobs) expect(await works(gw.base, keys.bob ?? "", bob.id)).toBe(true);
    for (const id of alices) expect(await works(gw.base, keys.alice ?? "", id)).toBe(true);
    // Another principal still opens sessions.
    expect((await open(gw.base, keys.bob ?? "")).status).toBe(200);

    // Ending one of alice's sessions frees its slot, once.
    expect(await end(gw.base, keys.alice ?? "", alices[0] ?? "")).toBe(200);
    expect((await open(gw.base, keys.alice ?? "")).status).toBe(200);
    expect((await open(gw.base, keys.alice ?? "")).status).toBe(429);
  });

  it("refuses a tenant's principals together past the tenant cap", async () => {
    const first = [
      await open(gw.base, keys.t1a ?? ""),
      await open(gw.base, keys.t1a ?? ""),
      await open(gw.base, keys.t1a ?? ""),
      await open(gw.base, keys.t1b ?? ""),
    ];
    expect(first.map((s) => s.status)).toEqual([200, 200, 200, 200]);
    const refused = await open(gw.base, keys.t1b ?? "");
    expect(refused.status).toBe(429);
    expect(JSON.stringify(refused.body)).toContain("at most 4 per tenant on this replica");
    // Another tenant has a budget of its own.
    expect((await open(gw.base, keys.t2 ?? "")).status).toBe(200);
    for (const session of first.slice(0, 3))
      expect(await works(gw.base, keys.t1a ?? "", session.id)).toBe(true);
  });

  it("counts anonymous callers as one principal", async () => {
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await open(gw.base, null)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});

describe("the replica-wide cap", () => {
  it("refuses a new session at the cap and evicts none (authentication off)", async () => {
    const gw = await start("http: {mcp_sessions: {max_sessions: 3}}");
    const sessions = [await open(gw.base, null), await open(gw.base, null), await open(gw.base, null)];
    expect(sessions.map((s) => s.status)).toEqual([200, 200, 200]);
    const refused = await open(gw.base, null);
    expect(refused.status).toBe(429);
    expect(JSON.stringify(refused.body)).toContain(
      "at most 3 in all on this replica (http.mcp_sessions.max_sessions)",
    );
    for (const session of sessions) expect(await works(gw.base, null, session.id)).toBe(true);
    expect(await end(gw.base, null, sessions[1]?.id ?? "")).toBe(200);
    expect((await open(gw.base, null)).status).toBe(200);
    expect((await open(gw.base, null)).status).toBe(429);
  });
});

describe("a session rebuilt from the store", () => {
  it("counts under the caps, and a refusal leaves the session open for a retry", async () => {
    // Two replicas on one store: the second rebuilds the first one's sessions on request.
    const repositories = memoryRepositories();
    const storage = (): Storage => {
      const eventStore = new MemoryEventStore();
      return {
        eventStore,
        repositories,
        description: "memory",
        degraded: null,
        close: () => eventStore.close(),
      };
    };
    const caps = `${AUTH}http: {mcp_sessions: {max_per_principal: 2}}`;
    const [one, two] = [await start(caps, storage()), await start(caps, storage())];
    const key = await createApiKey(one, "carol");
    const held = await open(one.base, key);
    const local = [await open(two.base, key), await open(two.base, key)];
    expect([held, ...local].map((s) => s.status)).toEqual([200, 200, 200]);

    const refused = await rawMcpPost(
      two.base,
      held.id,
      { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} },
      { "x-api-key": key },
    );
    expect(refused.status).toBe(429);
    expect(JSON.stringify(await refused.json())).toContain("SessionLimitExceeded");
    // Not ended: it works where it is, and on the second replica once a slot there is free.
    expect(await works(one.base, key, held.id)).toBe(true);
    expect(await end(two.base, key, local[0]?.id ?? "")).toBe(200);
    expect(await works(two.base, key, held.id)).toBe(true);

    // Ending a session is never refused by a cap, even where rebuilding it would pass one.
    const other = await open(one.base, key);
    expect(other.status).toBe(200);
    expect(await end(two.base, key, other.id)).toBe(200);
    expect((await open(two.base, key)).status).toBe(429);
  });
});
