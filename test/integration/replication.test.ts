import path from "node:path";
import type { FastifyInstance } from "fastify";
import pino from "pino";
import { afterAll, beforeAll, expect, it } from "vitest";
import { openPostgres } from "../../src/adapters/store/postgres/open-postgres.js";
import type { SqlStore } from "../../src/adapters/store/sql-store.js";
import type { GatedCall } from "../../src/app/routing/call-gate.js";
import { createGateway, type Gateway } from "../../src/composition/create-gateway.js";
import { parseConfig } from "../../src/config/load.js";
import type { DomainEventPayload } from "../../src/domain/events.js";
import { DATABASE_URL, describePostgres, freshPostgres, sharedPostgresStorage } from "../support/backends.js";
import { waitFor } from "../support/gateway.js";
import { type Frame, Peer } from "../support/ws-peer.js";

/**
 * Three gateways in this process share one PostgreSQL schema, as replicas do: the events each one
 * produces reach the WebSocket clients of the others through the shared event log, in commit
 * order and once; a session suspended through one is refused by the others.
 */
const YAML = `
persistence:
  backend: postgresql
  postgresql: {host: 127.0.0.1}
coordination: {}
rate_limit: {rps: 1000, burst: 1000}
`;

interface Replica {
  gateway: Gateway;
  app: FastifyInstance;
  url: string;
}

let first: SqlStore<unknown> & { schema: string };
const stores: SqlStore<unknown>[] = [];
const replicas: Replica[] = [];
const peers: Peer[] = [];

async function replica(label: string, sql: SqlStore<unknown>): Promise<Replica> {
  const { config, env } = parseConfig(YAML, { env: {} });
  const gateway = await createGateway({
    config,
    env,
    logger: pino({ level: "silent" }),
    instanceLabel: label,
    storage: sharedPostgresStorage(sql),
  });
  gateway.startBackground();
  const app = await gateway.http();
  const base = await app.listen({ host: "127.0.0.1", port: 0 });
  return { gateway, app, url: `${base.replace("http", "ws")}/api/ws/events` };
}

const started = (server: string, n: number): DomainEventPayload => ({
  type: "McpServerStarted",
  mcp_server_id: server,
  tools_count: n,
  startup_duration_ms: 1,
});

async function connect(target: Replica, eventTypes: string[]): Promise<Peer> {
  const peer = new Peer(target.url);
  peers.push(peer);
  await peer.subscribe({ event_types: eventTypes });
  return peer;
}

/** Registers the example arithmetic server through one replica and waits until the others serve it. */
async function registerArithmetic(id: string, through: Replica, peers: Replica[]): Promise<void> {
  const arithmetic = path.resolve("examples/servers/arithmetic.mjs");
  const registered = await through.app.inject({
    method: "POST",
    url: "/api/mcp_servers/",
    payload: { mcp_server_id: id, mode: "subprocess", command: [process.execPath, arithmetic] },
  });
  expect(registered.statusCode).toBe(201);
  for (const peer of peers) {
    await waitFor(
      async () => (await peer.app.inject({ url: `/api/mcp_servers/${id}` })).statusCode === 200,
      10_000,
    );
  }
}

const idsOf = (frames: Frame[]) => frames.map((frame) => frame.event_id as string);

await describePostgres("replicas sharing PostgreSQL", () => {
  beforeAll(async () => {
    first = await freshPostgres();
    stores.push(first);
    for (let i = 0; i < 2; i += 1) {
      stores.push(
        await openPostgres({
          connection: { connectionString: DATABASE_URL },
          schema: first.schema,
          maxConnections: 4,
        }),
      );
    }
    for (const [index, label] of ["a", "b", "c"].entries())
      replicas.push(await replica(`replica-${label}`, stores[index] as SqlStore<unknown>));
  });

  afterAll(async () => {
    for (const peer of peers.splice(0)) peer.close();
    for (const { app, gateway } of replicas.splice(0)) {
      await app.close();
      await gateway.shutdown();
    }
    // The first store drops the schema: it closes last.
    for (const store of stores.splice(0).reverse()) await store.close();
  });

  it("shows a WebSocket client of one replica the events of its peers in commit order, each once, and its own once", async () => {
    const [a, b, c] = replicas as [Replica, Replica, Replica];
    const client = await connect(b, ["McpServerStarted"]);
    const produced: string[] = [];
    // A and C publish at the same time, so their batches interleave in the shared log.
    await Promise.all(
      [a, c].map(async (producer, p) => {
        for (let n = 0; n < 20; n += 1) {
          produced.push(...idsOf(producer.gateway.services.bus.publish([started(`s${p}`, n)]) as never));
          if (n % 5 === 0) await new Promise((resolve) => setTimeout(resolve, 3));
        }
      }),
    );
    const local = b.gateway.services.bus.publish([started("local", 0)]);
    await Promise.all(replicas.map((r) => r.gateway.services.eventStore.flush()));
    // Published after everything above committed: once B delivers it, B's cursor is past all of them.
    const [sentinel] = a.gateway.services.bus.publish([started("sentinel", 0)]);
    await client.next((frame) => frame.event_id === sentinel?.event_id, 0, 10_000);

    const received = idsOf(client.events());
    const stored = (await b.gateway.services.eventStore.readAll({ limit: 1_000 }))
      .filter((record) => record.event.type === "McpServerStarted")
      .map((record) => record.event.event_id);
    const peerIds = new Set([...produced, sentinel?.event_id]);
    // Peers' events: every one, once, in the store's commit order.
    expect(received.filter((id) => peerIds.has(id))).toEqual(stored.filter((id) => peerIds.has(id)));
    expect(received.filter((id) => peerIds.has(id))).toHaveLength(41);
    // The local event: once (delivered at publication, not again by the tailer).
    expect(received.filter((id) => id === local[0]?.event_id)).toHaveLength(1);
    expect(new Set(received).size).toBe(received.length);
    // Recorded once each: peers' events are delivered, never appended again.
    expect(new Set(stored).size).toBe(stored.length);
    expect(stored).toHaveLength(42);
  });

  it("does not deliver a peer's event to a replica's own recorders or read models", async () => {
    const [a, b] = replicas as [Replica, Replica];
    const seenByLocalListeners: string[] = [];
    const stop = b.gateway.services.bus.subscribe((event) => seenByLocalListeners.push(event.event_id));
    try {
      const client = await connect(b, ["McpServerStopped"]);
      const [event] = a.gateway.services.bus.publish([
        { type: "McpServerStopped", mcp_server_id: "x", reason: "test" },
      ]);
      await client.next((frame) => frame.event_id === event?.event_id, 0, 10_000);
      expect(seenByLocalListeners).not.toContain(event?.event_id);
    } finally {
      stop();
    }
  });

  it("runs on every replica a server registered through one, and drops it everywhere when removed", async () => {
    const [a, b, c] = replicas as [Replica, Replica, Replica];
    await registerArithmetic("shared-math", a, [b, c]);
    const started = await b.app.inject({ method: "POST", url: "/api/mcp_servers/shared-math/start" });
    expect(started.statusCode).toBe(200);
    const tools = await b.app.inject({ url: "/api/mcp_servers/shared-math/tools" });
    expect(tools.statusCode).toBe(200);
    expect(JSON.stringify(tools.json())).toContain("add");

    const removed = await a.app.inject({ method: "DELETE", url: "/api/mcp_servers/shared-math" });
    expect(removed.statusCode).toBe(200);
    for (const peer of [b, c]) {
      await waitFor(
        async () => (await peer.app.inject({ url: "/api/mcp_servers/shared-math" })).statusCode === 404,
        10_000,
      );
    }
    // B's running instance was stopped with it.
    expect(b.gateway.services.fleet.get("shared-math")).toBeUndefined();
  });

  it("shows on every replica a group created through one, with its members, and drops it when deleted", async () => {
    const [a, b, c] = replicas as [Replica, Replica, Replica];
    const created = await a.app.inject({
      method: "POST",
      url: "/api/groups/",
      payload: { group_id: "shared-pool", strategy: "round_robin", min_healthy: 1 },
    });
    expect(created.statusCode).toBe(201);
    for (const peer of [b, c]) {
      await waitFor(
        async () => (await peer.app.inject({ url: "/api/groups/shared-pool" })).statusCode === 200,
        10_000,
      );
    }
    expect(b.gateway.services.groups.require("shared-pool").source).toBe("api");

    const removed = await a.app.inject({ method: "DELETE", url: "/api/groups/shared-pool" });
    expect(removed.statusCode).toBe(200);
    for (const peer of [b, c]) {
      await waitFor(
        async () => (await peer.app.inject({ url: "/api/groups/shared-pool" })).statusCode === 404,
        10_000,
      );
    }
  });

  it("refuses on a replica the calls of a session suspended through another", async () => {
    const [a, b] = replicas as [Replica, Replica];
    const gate = b.gateway.services.callGates?.find((candidate) => candidate.name === "suspended_session");
    expect(gate).toBeDefined();
    const call = { ctx: { sessionId: "session-on-b" } } as unknown as GatedCall;
    // Read by B before the suspension: B holds a copy in which the session is not suspended.
    await expect(gate?.check(call)).resolves.toBeUndefined();
    const response = await a.app.inject({
      method: "POST",
      url: "/api/sessions/session-on-b/suspend",
      payload: { reason: "incident" },
    });
    expect(response.statusCode).toBe(200);
    let refusal: unknown;
    await waitFor(async () => {
      refusal = await gate?.check(call).then(
        () => undefined,
        (error: unknown) => error,
      );
      return refusal !== undefined;
    }, 10_000);
    expect((refusal as { type?: string }).type).toBe("SessionSuspendedError");
  });

  it("applies on every replica a tool withdrawn or restored through one", async () => {
    const [a, b, c] = replicas as [Replica, Replica, Replica];
    await registerArithmetic("withdrawn-math", a, [b, c]);
    const withdrawn = (replica: Replica) =>
      replica.gateway.services.governance?.withdrawals.isWithdrawn("withdrawn-math", "add", null);
    for (const peer of [b, c]) expect(withdrawn(peer)).toBe(false);
    const withdraw = await a.app.inject({
      method: "POST",
      url: "/api/admin/tools/withdrawn-math/add/withdraw",
      payload: {},
    });
    expect(withdraw.statusCode).toBe(200);
    for (const peer of [b, c]) await waitFor(() => withdrawn(peer) === true, 10_000);

    // Restored through another replica than the one that withdrew it.
    const restore = await b.app.inject({
      method: "POST",
      url: "/api/admin/tools/withdrawn-math/add/restore",
      payload: {},
    });
    expect(restore.json()).toMatchObject({ restored: true });
    for (const peer of [a, c]) await waitFor(() => withdrawn(peer) === false, 10_000);
    await a.app.inject({ method: "DELETE", url: "/api/mcp_servers/withdrawn-math" });
  });

  it("refuses a tool withdrawn before a replica started from that replica's start", async () => {
    const [a, b] = replicas as [Replica, Replica];
    await registerArithmetic("late-math", a, [b]);
    const withdraw = await a.app.inject({
      method: "POST",
      url: "/api/admin/tools/late-math/add/withdraw",
      payload: { tenant_id: "t1" },
    });
    expect(withdraw.statusCode).toBe(200);
    const store = await openPostgres({
      connection: { connectionString: DATABASE_URL },
      schema: first.schema,
      maxConnections: 4,
    });
    stores.splice(1, 0, store);
    const late = await replica("replica-late", store);
    replicas.push(late);
    const withdrawals = late.gateway.services.governance?.withdrawals;
    expect(withdrawals?.isWithdrawn("late-math", "add", "t1")).toBe(true);
    expect(withdrawals?.isWithdrawn("late-math", "add", "t2")).toBe(false);
    const restore = await late.app.inject({
      method: "POST",
      url: "/api/admin/tools/late-math/add/restore",
      payload: { tenant_id: "t1" },
    });
    expect(restore.json()).toMatchObject({ restored: true });
    await waitFor(
      () => a.gateway.services.governance?.withdrawals.isWithdrawn("late-math", "add", "t1") === false,
      10_000,
    );
    await a.app.inject({ method: "DELETE", url: "/api/mcp_servers/late-math" });
  });

  it("puts in force on every replica the agent policy pushed to one, by the version rule", async () => {
    const [a, b, c] = replicas as [Replica, Replica, Replica];
    const agentOf = (replica: Replica) => replica.gateway.services.governance?.agent;
    const push = (replica: Replica, version: number, action: string) =>
      replica.app.inject({
        method: "POST",
        url: "/api/agent/policy",
        payload: { version, tool_policies: [{ mcp_server_id: "*", action, tool_name: "add" }] },
      });
    expect((await push(a, 7, "deny")).statusCode).toBe(200);
    for (const peer of [b, c]) await waitFor(() => agentOf(peer)?.version === 7, 10_000);
    expect(agentOf(b)?.policiesOver("any-server", [])).toEqual([
      expect.objectContaining({ deny_list: ["add"] }),
    ]);
    // A push older than the one in force is refused where it lands, and changes nothing anywhere.
    expect((await push(c, 3, "allow")).statusCode).toBe(409);
    expect((await push(b, 8, "allow")).statusCode).toBe(200);
    for (const peer of [a, c]) await waitFor(() => agentOf(peer)?.version === 8, 10_000);
    expect(agentOf(a)?.policiesOver("any-server", [])).toEqual([
      expect.objectContaining({ allow_list: ["add"] }),
    ]);

    // A replica started after the push enforces it from its start, and refuses an older push.
    const store = await openPostgres({
      connection: { connectionString: DATABASE_URL },
      schema: first.schema,
      maxConnections: 4,
    });
    stores.splice(1, 0, store);
    const late = await replica("replica-late-agent", store);
    replicas.push(late);
    expect(agentOf(late)?.version).toBe(8);
    expect(agentOf(late)?.policiesOver("any-server", [])).toEqual([
      expect.objectContaining({ allow_list: ["add"] }),
    ]);
    const stale = await push(late, 6, "deny");
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toMatchObject({ error: "stale_version", version: 8 });
  });
});
