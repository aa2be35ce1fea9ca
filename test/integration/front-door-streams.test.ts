/**
 * The front door's GET streams (spec 2 §8, "list_changed streams"): a cap per principal and per
 * tenant (excess answers 429), and an end at key revocation, role revocation or after the longest
 * age. Limits are shortened here; the defaults are 32, 256, one hour and a re-check every 15 s.
 */
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGateway, type Gateway } from "../../src/composition/create-gateway.js";
import { memoryStorage } from "../../src/composition/open-storage.js";
import { parseConfig } from "../../src/config/load.js";
import { createApiKey } from "../support/api-keys.js";
import { ARITHMETIC, waitFor } from "../support/gateway.js";
import { rawInitialize } from "../support/mcp-client.js";

let gateway: Gateway;
let base: string;
let close: () => Promise<void>;

beforeAll(async () => {
  const { config, env } = parseConfig(
    `
tool_access: {mode: front_door}
auth:
  enabled: true
  # Low, so that a re-check counting as a failed login would lock the test's address out.
  rate_limit: {max_attempts: 2, window_seconds: 60, lockout_seconds: 60}
  role_assignments:
    - {principal: viewer1, role: viewer}
    - {principal: viewer2, role: viewer}
    - {principal: tenant1, role: viewer, scope: "tenant:t1"}
    - {principal: tenant2, role: viewer, scope: "tenant:t1"}
mcp_servers:
  math:
    command: [node, ${JSON.stringify(ARITHMETIC)}]
`,
    { env: { PATH: process.env.PATH } },
  );
  gateway = await createGateway({
    config,
    env,
    logger: pino({ level: "silent" }),
    instanceLabel: "test",
    storage: memoryStorage(),
    streamLimits: { perPrincipal: 2, perTenant: 3, maxAgeMs: 60_000, recheckMs: 100 },
  });
  const app = await gateway.http();
  base = await app.listen({ host: "127.0.0.1", port: 0 });
  close = async () => {
    await app.close();
    await gateway.shutdown();
  };
});
afterAll(async () => {
  await close?.();
});

const key = (principal: string, tenant: string | null = null) =>
  createApiKey({ gateway }, principal, { tenant });

/** A session of `apiKey` with its GET stream; `status` is the GET's, `ended` resolves when the stream ends. */
async function openStream(apiKey: string) {
  const init = await rawInitialize(base, { "x-api-key": apiKey });
  const session = init.headers.get("mcp-session-id") ?? "";
  await init.body?.cancel();
  const abort = new AbortController();
  const response = await fetch(new URL("/mcp", base), {
    headers: { "x-api-key": apiKey, "mcp-session-id": session, accept: "text/event-stream" },
    signal: abort.signal,
  });
  const ended =
    response.status === 200
      ? (async () => {
          const reader = response.body?.getReader();
          try {
            while (!(await reader?.read())?.done) {}
          } catch {}
          return true;
        })()
      : Promise.resolve(true);
  return { status: response.status, response, ended, stop: () => abort.abort() };
}

describe("the front door's GET streams", () => {
  it("answers 429 past the cap per principal, and counts a closed stream no more", async () => {
    const apiKey = await key("viewer1");
    const first = await openStream(apiKey);
    const second = await openStream(apiKey);
    const third = await openStream(apiKey);
    expect([first.status, second.status, third.status]).toEqual([200, 200, 429]);
    expect(((await third.response.json()) as { error: { message: string } }).error.message).toContain(
      "per principal",
    );
    first.stop();
    await waitFor(async () => {
      const again = await openStream(apiKey);
      again.stop();
      return again.status === 200;
    });
    second.stop();
  });

  it("answers 429 past the cap per tenant", async () => {
    const streams = [
      await openStream(await key("tenant1", "t1")),
      await openStream(await key("tenant1", "t1")),
      await openStream(await key("tenant2", "t1")),
    ];
    expect(streams.map((stream) => stream.status)).toEqual([200, 200, 200]);
    const fourth = await openStream(await key("tenant2", "t1"));
    expect(fourth.status).toBe(429);
    for (const stream of streams) stream.stop();
  });

  it("ends a stream when its key is revoked", async () => {
    const apiKey = await key("viewer2");
    const stream = await openStream(apiKey);
    expect(stream.status).toBe(200);
    const { repositories } = gateway.services;
    const [stored] = await repositories.apiKeys.list("viewer2", true);
    await repositories.apiKeys.revoke(stored?.key_id ?? "", {
      revoked_by: "test",
      reason: "test",
      at: Date.now() / 1000,
    });
    expect(
      await Promise.race([stream.ended, new Promise((resolve) => setTimeout(() => resolve(false), 5_000))]),
    ).toBe(true);
  });

  it("counts no failed login for a re-check: a revoked key's streams do not lock its address out", async () => {
    const doomed = await key("viewer1");
    const streams = [await openStream(doomed), await openStream(doomed)];
    expect(streams.map((stream) => stream.status)).toEqual([200, 200]);
    const { repositories } = gateway.services;
    const live = (await repositories.apiKeys.list("viewer1", false)).at(-1);
    await repositories.apiKeys.revoke(live?.key_id ?? "", {
      revoked_by: "test",
      reason: "test",
      at: Date.now() / 1000,
    });
    await Promise.all(streams.map((stream) => stream.ended));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const other = await fetch(new URL("/api/mcp_servers/", base), {
      headers: { "x-api-key": await key("viewer2") },
    });
    expect(other.status).toBe(200);
  });

  it("ends a stream when its principal loses a role it held when the stream opened", async () => {
    const { repositories, authorizer } = gateway.services;
    await repositories.roleAssignments.assign({
      principal_id: "viewer3",
      role_name: "viewer",
      scope: "global",
      assigned_by: "test",
      assigned_at: Date.now() / 1000,
    });
    authorizer.invalidate();
    const stream = await openStream(await key("viewer3"));
    expect(stream.status).toBe(200);
    const early = await Promise.race([
      stream.ended,
      new Promise((resolve) => setTimeout(() => resolve(false), 500)),
    ]);
    expect(early).toBe(false);
    await repositories.roleAssignments.revoke("viewer3", "viewer", "global");
    // As `DELETE /auth/roles/...` does on this replica.
    authorizer.invalidate();
    expect(
      await Promise.race([stream.ended, new Promise((resolve) => setTimeout(() => resolve(false), 5_000))]),
    ).toBe(true);
  });
});
