import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { CONTROLLABLE, startTestGateway, type TestGateway, waitFor } from "../support/gateway.js";
import { callJson, connectHttp } from "../support/mcp-client.js";
import { describeRedis, REDIS_URL } from "../support/redis.js";
import { TcpProxy } from "../support/tcp-proxy.js";

/**
 * A Redis database of this file's own for the delivery queue (BullMQ's queue name and prefix are
 * fixed): its jobs carry random approval ids and are never flushed.
 */
const DELIVERY_DB = 13;
/** What no answer may carry: stack frames and the Redis client's own messages. */
const LEAK = /\n\s+at |ECONNREFUSED|ECONNRESET|Stream isn't writeable|Connection is closed|ioredis/;

/** A loopback webhook receiver that records every body it is sent. */
async function receiver(): Promise<{ url: string; bodies: string[]; close(): Promise<void> }> {
  const bodies: string[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      bodies.push(Buffer.concat(chunks).toString("utf8"));
      response.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    bodies,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

await describeRedis("a gateway whose Redis goes away", () => {
  let proxy: TcpProxy;
  let hook: Awaited<ReturnType<typeof receiver>>;
  let gw: TestGateway;
  let client: Client;

  beforeAll(async () => {
    const url = new URL(REDIS_URL);
    proxy = await TcpProxy.start({ host: url.hostname, port: Number(url.port || 6379) });
    hook = await receiver();
    const delivery = new URL(proxy.rewrite(REDIS_URL));
    delivery.pathname = `/${DELIVERY_DB}`;
    gw = await startTestGateway(`
rate_limit: {rps: 1000, burst: 1000}
truncation:
  enabled: true
  max_batch_size_bytes: 20000
  min_per_response_bytes: 1000
  cache_driver: redis
  redis_url: ${JSON.stringify(proxy.rewrite(REDIS_URL))}
approvals:
  delivery: {redis_url: ${JSON.stringify(delivery.toString())}, max_attempts: 3, backoff_s: 0.2}
  webhook: {url: ${hook.url}, signing_secret: webhook-shared-secret-0123456789}
mcp_servers:
  ctl:
    command: [node, ${JSON.stringify(CONTROLLABLE)}]
    tools: {approval_list: [echo], approval_channel: webhook, approval_timeout_seconds: 60}
`);
    const base = await gw.app.listen({ host: "127.0.0.1", port: 0 });
    client = await connectHttp(base);
  }, 30_000);

  afterAll(async () => {
    await client?.close();
    await gw?.close();
    await proxy?.close();
    await hook?.close();
  });

  const cut = async () => {
    const { json } = await callJson(client, "gateway_call", {
      calls: [{ mcp_server: "ctl", tool: "large", arguments: { chars: 100_000 } }],
    });
    return json.results[0] as { truncated: boolean; continuation_id: string | null };
  };
  const fetchSlice = (id: string) =>
    callJson(client, "gateway_fetch_continuation", { continuation_id: id, limit: 100 });

  it("fails a continuation read with StoreUnavailableError naming Redis while it is away, and serves it once back", async () => {
    const stored = await cut();
    expect(stored).toMatchObject({ truncated: true, continuation_id: expect.any(String) });
    const id = stored.continuation_id!;
    expect((await fetchSlice(id)).json).toMatchObject({ found: true });

    await proxy.drop();
    // ioredis notices the reset connection at once; until then a read may still be in flight.
    await waitFor(async () => (await fetchSlice(id)).json?.error_type === "StoreUnavailableError", 5_000);
    const away = await fetchSlice(id);
    expect(away.json).toMatchObject({
      error_type: "StoreUnavailableError",
      error: expect.stringMatching(/Redis/),
      details: { retry_after: expect.any(Number) },
    });
    expect(away.text).not.toMatch(LEAK);
    // A call whose result is cut still answers: its full text has nowhere to go, so no continuation id.
    expect(await cut()).toMatchObject({ truncated: true, continuation_id: null });

    await proxy.accept();
    const backAt = performance.now();
    await waitFor(async () => (await fetchSlice(id)).json?.found === true, 10_000);
    console.info(
      `truncation cache usable again ${Math.round(performance.now() - backAt)} ms after Redis returned`,
    );
    expect((await cut()).continuation_id).toEqual(expect.any(String));
  }, 30_000);

  it("keeps an approval request while Redis is away and delivers it once Redis is back", async () => {
    await proxy.drop();
    const held = callJson(client, "gateway_call", {
      calls: [{ mcp_server: "ctl", tool: "echo", arguments: { message: "during the outage" } }],
    });
    const pending = async () => {
      const response = await gw.app.inject({ method: "GET", url: "/api/approvals?state=pending" });
      return response.json() as { approval_id: string }[];
    };
    await waitFor(async () => (await pending()).length === 1, 10_000);
    const [approval] = await pending();
    // Nothing reaches the webhook while the queue is unreachable.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(hook.bodies.filter((body) => body.includes(approval!.approval_id))).toHaveLength(0);

    await proxy.accept();
    const backAt = performance.now();
    await waitFor(() => hook.bodies.some((body) => body.includes(approval!.approval_id)), 15_000);
    console.info(
      `approval request delivered ${Math.round(performance.now() - backAt)} ms after Redis returned`,
    );
    expect(hook.bodies.filter((body) => body.includes(approval!.approval_id))).toHaveLength(1);

    const resolved = await gw.app.inject({
      method: "POST",
      url: `/api/approvals/${approval!.approval_id}/resolve`,
      payload: { decision: "approve" },
    });
    expect(resolved.statusCode).toBe(200);
    const { json } = await held;
    expect(json).toMatchObject({ success: true, succeeded: 1 });
  }, 40_000);
});
