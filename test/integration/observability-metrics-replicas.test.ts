import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { FastifyInstance } from "fastify";
import pino from "pino";
import { afterAll, beforeAll, expect, it } from "vitest";
import { openPostgres } from "../../src/adapters/store/postgres/open-postgres.js";
import type { SqlStore } from "../../src/adapters/store/sql-store.js";
import { createGateway, type Gateway } from "../../src/composition/create-gateway.js";
import { parseConfig } from "../../src/config/load.js";
import { SAMPLED_METRICS } from "../../src/control/metrics-sampler.js";
import { DATABASE_URL, describePostgres, freshPostgres, sharedPostgresStorage } from "../support/backends.js";
import { ARITHMETIC, waitFor } from "../support/gateway.js";
import { callJson, connectHttp } from "../support/mcp-client.js";

/**
 * Two gateways sharing one PostgreSQL schema, each sampling its own calls every second in the
 * background, as replicas do: the history route of either answers both replicas' samples.
 */
const YAML = `
persistence:
  backend: postgresql
  postgresql: {host: 127.0.0.1}
observability:
  metrics_history: {interval_s: 1}
mcp_servers:
  math:
    command: [node, ${JSON.stringify(ARITHMETIC)}]
`;

interface Replica {
  gateway: Gateway;
  app: FastifyInstance;
  client: Client;
}

interface Series {
  metric: string;
  labels: Record<string, string>;
  points: [number, number][];
}

const stores: SqlStore<unknown>[] = [];
const replicas: Replica[] = [];

async function replica(label: string, sql: SqlStore<unknown>): Promise<Replica> {
  const { config, env } = parseConfig(YAML, { env: { PATH: process.env.PATH } });
  const gateway = await createGateway({
    config,
    env,
    logger: pino({ level: "silent" }),
    instanceLabel: label,
    storage: sharedPostgresStorage(sql),
  });
  gateway.startBackground();
  const app = await gateway.http();
  const client = await connectHttp(await app.listen({ host: "127.0.0.1", port: 0 }));
  return { gateway, app, client };
}

async function addTimes(target: Replica, times: number): Promise<void> {
  const calls = Array.from({ length: times }, () => ({
    mcp_server: "math",
    tool: "add",
    arguments: { a: 1, b: 2 },
  }));
  const { json } = await callJson(target.client, "gateway_call", { calls });
  expect(json.succeeded).toBe(times);
}

/** The calls each replica recorded for `math` in the last 5 minutes, as read through `through`. */
async function recordedCalls(through: Replica): Promise<Record<string, number>> {
  const response = await through.app.inject({ url: "/api/observability/metrics/history?minutes=5" });
  expect(response.statusCode).toBe(200);
  const byReplica: Record<string, number> = {};
  for (const series of response.json().series as Series[]) {
    if (series.metric !== SAMPLED_METRICS.calls || series.labels.mcp_server !== "math") continue;
    const replicaId = series.labels.replica as string;
    byReplica[replicaId] = series.points.reduce((sum, [, value]) => sum + value, 0);
  }
  return byReplica;
}

await describePostgres("metric history of replicas sharing PostgreSQL", () => {
  beforeAll(async () => {
    const first = await freshPostgres();
    stores.push(first);
    stores.push(
      await openPostgres({
        connection: { connectionString: DATABASE_URL },
        schema: first.schema,
        maxConnections: 4,
      }),
    );
    for (const [index, label] of ["metrics-a", "metrics-b"].entries())
      replicas.push(await replica(label, stores[index] as SqlStore<unknown>));
  });

  afterAll(async () => {
    for (const { client, app, gateway } of replicas.splice(0)) {
      await client.close();
      await app.close();
      await gateway.shutdown();
    }
    // The first store drops the schema: it closes last.
    for (const store of stores.splice(0).reverse()) await store.close();
  });

  it("records each replica's calls under its own label, and answers all of them on either replica", async () => {
    const [a, b] = replicas as [Replica, Replica];
    await addTimes(a, 3);
    await addTimes(b, 2);
    const idA = a.gateway.services.instance.instance_id;
    const idB = b.gateway.services.instance.instance_id;
    let seen: Record<string, number> = {};
    await waitFor(async () => {
      seen = await recordedCalls(b);
      return seen[idA] === 3 && seen[idB] === 2;
    }, 15_000);
    expect(seen).toEqual({ [idA]: 3, [idB]: 2 });
    expect(await recordedCalls(a)).toEqual(seen);
    const history = (await a.app.inject({ url: "/api/observability/metrics/history?minutes=5" })).json();
    expect(history.replicas).toEqual([idA, idB].sort());
    expect(history.interval_s).toBe(1);

    // The snapshot is the replica's own: each one shows only the calls it served.
    const snapshot = async (target: Replica) =>
      (await target.app.inject({ url: "/api/observability/metrics" })).json();
    expect((await snapshot(a)).mcp_servers.math.calls).toBe(3);
    expect((await snapshot(b)).mcp_servers.math.calls).toBe(2);
    expect((await snapshot(b)).replica.instance_id).toBe(idB);
  });
});
