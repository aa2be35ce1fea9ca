import type { FastifyInstance } from "fastify";
import pino from "pino";
import { afterAll, beforeAll, expect, it } from "vitest";
import { MemoryEventStore } from "../../src/adapters/store/memory/memory-event-store.js";
import type { StoreRepositories } from "../../src/app/ports/store-repositories.js";
import { createGateway, type Gateway } from "../../src/composition/create-gateway.js";
import { parseConfig } from "../../src/config/load.js";
import { BACKENDS, describeNow, describePostgres, openRepositories } from "../support/backends.js";
import { startTestGateway, waitFor } from "../support/gateway.js";

/**
 * Two gateways sharing one store's repositories with coordination, as replicas do: each answers
 * itself, the lease holder and the other, with their coordinates, and a stopped one leaves. The
 * configuration names PostgreSQL (coordination requires it); the repositories given are those of
 * each backend, so that the registry and lease adapters of every backend serve the route.
 */
const YAML = `
persistence: {backend: postgresql, postgresql: {host: 127.0.0.1}}
coordination: {lease_ttl_s: 3, renew_interval_s: 0.5, renew_deadline_s: 2}
`;

interface Replica {
  gateway: Gateway;
  app: FastifyInstance;
  base: string;
}

async function replica(label: string, repositories: StoreRepositories): Promise<Replica> {
  const { config, env } = parseConfig(YAML, { env: { PATH: process.env.PATH } });
  const eventStore = new MemoryEventStore();
  const gateway = await createGateway({
    config,
    env,
    logger: pino({ level: "silent" }),
    instanceLabel: label,
    storage: {
      eventStore,
      repositories,
      description: "shared",
      degraded: null,
      close: () => eventStore.close(),
    },
  });
  gateway.startBackground();
  const app = await gateway.http();
  return { gateway, app, base: await app.listen({ host: "127.0.0.1", port: 0 }) };
}

interface Answer {
  this_replica: string;
  coordinates_with_peers: boolean;
  lease: { holder: string; generation: number; expires_at: number; expired: boolean } | null;
  replicas: {
    instance_id: string;
    host: string;
    address: string | null;
    version: string;
    started_at: number;
    last_seen_at: number;
    is_self: boolean;
    holds_lease: boolean;
  }[];
}

const replicasOf = async (target: Replica): Promise<Answer> => {
  const response = await target.app.inject({ url: "/api/system/replicas" });
  expect(response.statusCode).toBe(200);
  return response.json();
};

for (const backend of BACKENDS) {
  await (backend === "postgres" ? describePostgres : describeNow)(
    `GET /api/system/replicas on ${backend}`,
    () => {
      let store: Awaited<ReturnType<typeof openRepositories>>;
      const started: Replica[] = [];

      beforeAll(async () => {
        store = await openRepositories(backend);
        started.push(await replica("replica-a", store.repos), await replica("replica-b", store.repos));
      });
      afterAll(async () => {
        for (const { app, gateway } of started.splice(0)) {
          await app.close();
          await gateway.shutdown();
        }
        await store?.close();
      });

      it("names every replica with its coordinates, and the lease holder, on either replica", async () => {
        const [a, b] = started as [Replica, Replica];
        const ids = [a, b].map((r) => r.gateway.services.instance.instance_id).sort();
        let answer: Answer | undefined;
        await waitFor(async () => {
          answer = await replicasOf(b);
          return (
            answer.replicas.length === 2 &&
            answer.replicas.every((r) => r.address !== null) &&
            answer.lease !== null &&
            !answer.lease.expired
          );
        }, 15_000);
        const seen = answer as Answer;
        expect(seen.this_replica).toBe(b.gateway.services.instance.instance_id);
        expect(seen.coordinates_with_peers).toBe(true);
        expect(seen.replicas.map((r) => r.instance_id)).toEqual(ids);
        const byId = new Map(seen.replicas.map((r) => [r.instance_id, r]));
        for (const r of [a, b]) {
          const entry = byId.get(r.gateway.services.instance.instance_id);
          expect(entry).toMatchObject({
            address: r.base,
            version: r.gateway.services.instance.version,
            is_self: r === b,
          });
          expect(entry?.started_at).toBeCloseTo(r.gateway.services.instance.started_at / 1000, 1);
          expect(entry?.last_seen_at).toBeGreaterThan(Date.now() / 1000 - 10);
        }
        const leader = [a, b].find((r) => r.gateway.services.instance.manages_fleet);
        expect(seen.lease?.holder).toBe(leader?.gateway.services.instance.instance_id);
        expect(seen.lease?.expires_at).toBeGreaterThan(Date.now() / 1000);
        expect(seen.replicas.filter((r) => r.holds_lease).map((r) => r.instance_id)).toEqual([
          seen.lease?.holder,
        ]);
        const fromA = await replicasOf(a);
        expect(fromA.replicas.map((r) => r.instance_id)).toEqual(ids);
        expect(fromA.lease?.holder).toBe(seen.lease?.holder);
      });

      it("drops a replica that stops", async () => {
        const [a, b] = started.splice(0, 2) as [Replica, Replica];
        started.push(a);
        await b.app.close();
        await b.gateway.shutdown();
        const gone = b.gateway.services.instance.instance_id;
        await waitFor(
          async () => !(await replicasOf(a)).replicas.some((r) => r.instance_id === gone),
          15_000,
        );
        expect((await replicasOf(a)).replicas.map((r) => r.instance_id)).toEqual([
          a.gateway.services.instance.instance_id,
        ]);
      });
    },
  );
}

await describeNow("GET /api/system/replicas without coordination", () => {
  it("answers this replica alone, with no lease", async () => {
    const gw = await startTestGateway("mcp_servers: {}\n");
    try {
      const answer = (await gw.app.inject({ url: "/api/system/replicas" })).json() as Answer;
      expect(answer.lease).toBeNull();
      expect(answer.coordinates_with_peers).toBe(false);
      expect(answer.replicas).toEqual([
        expect.objectContaining({
          instance_id: gw.gateway.services.instance.instance_id,
          is_self: true,
          holds_lease: true,
          address: null,
        }),
      ]);
    } finally {
      await gw.close();
    }
  });
});
