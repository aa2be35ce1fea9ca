import { createHmac } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createApiKey } from "../support/api-keys.js";
import { pendingApproval } from "../support/approvals.js";
import { CONTROLLABLE, startTestGateway, type TestGateway, waitFor } from "../support/gateway.js";
import { callJson } from "../support/mcp-client.js";
import { describeRedis, REDIS_URL } from "../support/redis.js";

/** A Redis database of this file's own: the delivery queue is flushed before each gateway. */
const DELIVERY_DB = 11;
const deliveryUrl = (() => {
  const url = new URL(REDIS_URL);
  url.pathname = `/${DELIVERY_DB}`;
  return url.toString();
})();

const WEBHOOK_SECRET = "webhook-shared-secret-0123456789";
const SLACK_SECRET = "slack-signing-secret-0123456789";
const BACKOFF_S = 0.2;

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** A loopback HTTP endpoint that records every request and answers from a per-path script. */
class Receiver {
  readonly received: Received[] = [];
  /** Statuses to answer, in order, per path; 200 once the script is used up. */
  readonly script = new Map<string, number[]>();
  private server: Server | undefined;
  url = "";

  async start(): Promise<void> {
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        const path = request.url ?? "/";
        this.received.push({
          path,
          headers: request.headers,
          body: Buffer.concat(chunks).toString("utf8"),
          at: performance.now(),
        });
        const status = this.script.get(path)?.shift() ?? 200;
        response.writeHead(status, { "content-type": "text/plain" }).end(status === 200 ? "ok" : "nope");
      });
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  on(path: string): Received[] {
    return this.received.filter((request) => request.path === path);
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

async function flushDeliveryDb(): Promise<void> {
  const client = new Redis(deliveryUrl, { maxRetriesPerRequest: 1 });
  try {
    await client.flushdb();
  } finally {
    client.disconnect();
  }
}

const sign = (secret: string, timestamp: string, body: string) =>
  `sha256=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`;

const server = (id: string, channel: string) => `
  ${id}:
    command: [node, ${JSON.stringify(CONTROLLABLE)}]
    tools: {approval_list: [echo], approval_channel: ${channel}, approval_timeout_seconds: 60}`;

await describeRedis("approval delivery through BullMQ, and signed callbacks", () => {
  const receiver = new Receiver();
  let gw: TestGateway;
  let caller: Client;

  const callback = (body: string, headers: Record<string, string>) =>
    gw.app.inject({
      method: "POST",
      url: "/hooks/approvals",
      headers: { "content-type": "application/json", ...headers },
      payload: body,
    });

  const signedCallback = (
    secret: string,
    fields: Record<string, unknown>,
    timestamp = Math.floor(Date.now() / 1000),
  ) => {
    const body = JSON.stringify(fields);
    const ts = String(timestamp);
    return callback(body, { "x-airlock-timestamp": ts, "x-airlock-signature": sign(secret, ts, body) });
  };

  const call = async (target: string, args: Record<string, unknown>) => {
    const { json } = await callJson(caller, "gateway_call", {
      calls: [{ mcp_server: target, tool: "echo", arguments: args }],
    });
    return json.results[0];
  };

  /** A pending approval nobody holds, routed on `channel`, for the callback's refusals. */
  const pendingOn = async (id: string, channel: string) => {
    await gw.gateway.services.repositories.approvals.create(
      pendingApproval({ approval_id: id, mcp_server_id: "hooked", tool_name: "echo", channel }),
    );
  };

  beforeAll(async () => {
    await flushDeliveryDb();
    await receiver.start();
    gw = await startTestGateway(`
auth:
  enabled: true
  rate_limit: {max_attempts: 100000}
  role_assignments:
    - {principal: cal, role: developer}
rate_limit: {rps: 1000, burst: 1000}
approvals:
  delivery: {redis_url: "${deliveryUrl}", max_attempts: 5, backoff_s: ${BACKOFF_S}}
  webhook:
    url: ${receiver.url}/hook
    headers: {x-receiver-token: receiver-token}
    signing_secret: ${WEBHOOK_SECRET}
  slack:
    webhook_url: ${receiver.url}/slack
    signing_secret: ${SLACK_SECRET}
mcp_servers:${server("hooked", "webhook")}${server("chatty", "slack")}
`);
    const raw = await createApiKey(gw, "cal");
    const base = await gw.app.listen({ host: "127.0.0.1", port: 0 });
    caller = new Client({ name: "delivery-tests", version: "1.0.0" });
    await caller.connect(
      new StreamableHTTPClientTransport(new URL("/mcp", base), {
        requestInit: { headers: { "x-api-key": raw } },
      }),
    );
  });
  afterAll(async () => {
    await caller?.close();
    await gw?.close();
    await receiver.stop();
  });

  it("retries a webhook that fails twice, with growing backoff, then an HMAC callback approves the call", async () => {
    receiver.script.set("/hook", [500, 503]);
    const outcome = call("hooked", { message: "deploy", api_key: "sk_live_abcdefghijklmnop1234" });
    await waitFor(() => receiver.on("/hook").length >= 3, 15_000);
    const attempts = receiver.on("/hook");
    expect(attempts).toHaveLength(3);
    const documents = attempts.map((a) => JSON.parse(a.body));
    const approvalId = documents[0].approval.approval_id;
    expect(documents.every((d) => d.approval.approval_id === approvalId)).toBe(true);
    expect(documents[0]).toMatchObject({
      type: "approval_requested",
      approval: { mcp_server_id: "hooked", tool_name: "echo", channel: "webhook", state: "pending" },
      resolve: { rest: `/api/approvals/${approvalId}/resolve`, callback: "/hooks/approvals" },
    });
    expect(documents[0].approval.arguments).toEqual({ message: "deploy", api_key: "[REDACTED]" });
    for (const attempt of attempts) {
      expect(attempt.body).not.toContain("sk_live_");
      expect(attempt.headers["x-receiver-token"]).toBe("receiver-token");
      const timestamp = attempt.headers["x-airlock-timestamp"] as string;
      expect(attempt.headers["x-airlock-signature"]).toBe(sign(WEBHOOK_SECRET, timestamp, attempt.body));
    }
    // Exponential backoff: at least the first delay, then at least twice it (a little clock slack).
    const gaps = [attempts[1]!.at - attempts[0]!.at, attempts[2]!.at - attempts[1]!.at];
    expect(gaps[0]).toBeGreaterThanOrEqual(BACKOFF_S * 1000 * 0.9);
    expect(gaps[1]).toBeGreaterThanOrEqual(2 * BACKOFF_S * 1000 * 0.9);

    const approved = await signedCallback(WEBHOOK_SECRET, {
      approval_id: approvalId,
      decision: "approve",
      actor: "U42",
    });
    expect([approved.statusCode, approved.json()]).toEqual([
      200,
      { approval_id: approvalId, state: "approved" },
    ]);
    const result = await outcome;
    expect(result.success).toBe(true);
    expect(result.result.content[0].text).toBe("deploy");
    expect(await gw.gateway.services.repositories.approvals.get(approvalId)).toMatchObject({
      state: "approved",
      decided_by: "webhook:U42",
    });
  });

  it("posts a Slack message without the secret argument, and a Slack-signed callback denies the call", async () => {
    const outcome = call("chatty", { message: "wipe", password: "hunter2-hunter2" });
    await waitFor(() => receiver.on("/slack").length >= 1, 15_000);
    const message = receiver.on("/slack")[0]!;
    expect(message.body).not.toContain("hunter2");
    const parsed = JSON.parse(message.body);
    expect(parsed.text).toBe("Approval needed: echo on chatty");
    const approvalId = /Approval id: `([^`]+)`/.exec(JSON.stringify(parsed.blocks))?.[1];
    expect(approvalId).toBeDefined();
    const denied = await signedCallback(SLACK_SECRET, {
      approval_id: approvalId,
      decision: "deny",
      reason: "not today",
      actor: "U7",
    });
    expect(denied.json()).toEqual({ approval_id: approvalId, state: "denied" });
    expect(await outcome).toMatchObject({ success: false, error_type: "ToolAccessDeniedError" });
  });

  it("refuses a callback with a wrong, missing or stale signature, or a tampered body", async () => {
    await pendingOn("cb-refusals", "webhook");
    const fields = { approval_id: "cb-refusals", decision: "approve", actor: "mallory" };
    const body = JSON.stringify(fields);
    const now = String(Math.floor(Date.now() / 1000));
    const wrong = await callback(body, {
      "x-airlock-timestamp": now,
      "x-airlock-signature": sign("guessed-secret-000000", now, body),
    });
    expect([wrong.statusCode, wrong.json()]).toEqual([401, { error: "Invalid or missing signature" }]);
    expect((await callback(body, {})).statusCode).toBe(401);
    const stale = await signedCallback(WEBHOOK_SECRET, fields, Math.floor(Date.now() / 1000) - 600);
    expect([stale.statusCode, stale.json()]).toEqual([
      401,
      { error: "Signature timestamp outside the accepted window" },
    ]);
    const tampered = await callback(body.replace("approve", "deny"), {
      "x-airlock-timestamp": now,
      "x-airlock-signature": sign(WEBHOOK_SECRET, now, body),
    });
    expect(tampered.statusCode).toBe(401);
    expect((await gw.gateway.services.repositories.approvals.get("cb-refusals"))?.state).toBe("pending");
  });

  it("lets a channel decide only the approvals routed on it, and answers like the resolve route", async () => {
    await pendingOn("cb-webhook-only", "webhook");
    const bySlack = await signedCallback(SLACK_SECRET, {
      approval_id: "cb-webhook-only",
      decision: "approve",
      actor: "U1",
    });
    expect([bySlack.statusCode, bySlack.json()]).toEqual([404, { error: "Approval not found" }]);
    const bad = await signedCallback(WEBHOOK_SECRET, {
      approval_id: "cb-webhook-only",
      decision: "yes",
      actor: "U1",
    });
    expect([bad.statusCode, bad.json()]).toEqual([400, { error: "decision must be 'approve' or 'deny'" }]);
    const first = await signedCallback(WEBHOOK_SECRET, {
      approval_id: "cb-webhook-only",
      decision: "deny",
      actor: "U1",
    });
    expect(first.statusCode).toBe(200);
    const again = await signedCallback(WEBHOOK_SECRET, {
      approval_id: "cb-webhook-only",
      decision: "approve",
      actor: "U2",
    });
    expect([again.statusCode, again.json()]).toEqual([
      409,
      { error: "Approval already resolved", state: "denied" },
    ]);
  });
});

await describeRedis("approval delivery that must succeed (delivery.required)", () => {
  const receiver = new Receiver();
  let gw: TestGateway;

  beforeAll(async () => {
    await flushDeliveryDb();
    await receiver.start();
    receiver.script.set("/hook", [500, 500, 500, 500]);
    gw = await startTestGateway(`
approvals:
  delivery: {required: true, redis_url: "${deliveryUrl}", max_attempts: 2, backoff_s: 0.05}
  webhook: {url: ${receiver.url}/hook}
mcp_servers:${server("hooked", "webhook")}
`);
  });
  afterAll(async () => {
    await gw?.close();
    await receiver.stop();
  });

  it("refuses the held call once every delivery attempt failed, and records the gateway's denial", async () => {
    const { json } = await (async () => {
      const base = await gw.app.listen({ host: "127.0.0.1", port: 0 });
      const client = new Client({ name: "required-tests", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", base)));
      try {
        return await callJson(client, "gateway_call", {
          calls: [{ mcp_server: "hooked", tool: "echo", arguments: { message: "x" } }],
        });
      } finally {
        await client.close();
      }
    })();
    expect(json.results[0]).toMatchObject({ success: false, error_type: "ToolAccessDeniedError" });
    expect(json.results[0].error).toContain("could not be delivered");
    expect(receiver.on("/hook")).toHaveLength(2);
    const [denied] = await gw.gateway.services.repositories.approvals.list({ state: "denied" });
    expect(denied).toMatchObject({ decided_by: null, channel: "webhook" });
    expect(denied?.reason).toBe("delivery_failed: HTTP 500");
  });
});
