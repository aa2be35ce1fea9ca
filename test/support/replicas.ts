import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import pino from "pino";
import { MemoryEventStore } from "../../src/adapters/store/memory/memory-event-store.js";
import { sqlRepositories } from "../../src/adapters/store/sql/sql-repositories.js";
import type { SqlStore } from "../../src/adapters/store/sql-store.js";
import { createGateway, type Gateway } from "../../src/composition/create-gateway.js";
import type { Storage } from "../../src/composition/open-storage.js";
import { parseConfig } from "../../src/config/load.js";

export interface Replica {
  gateway: Gateway;
  app: FastifyInstance;
  base: string;
}

/**
 * `count` gateways of configuration `yaml` sharing the durable repositories of `store` (each with
 * an event store of its own), each listening on loopback.
 */
export async function startReplicas(
  yaml: string,
  count: number,
  store: SqlStore<unknown>,
): Promise<Replica[]> {
  const repositories = sqlRepositories(store);
  const replicas: Replica[] = [];
  for (let i = 0; i < count; i++) {
    const { config, env } = parseConfig(yaml, { env: { PATH: process.env.PATH } });
    const eventStore = new MemoryEventStore();
    // Each replica closes only its own event store; the shared database is closed by the caller.
    const storage: Storage = {
      eventStore,
      repositories,
      description: "postgresql (shared by the replicas)",
      degraded: null,
      close: () => eventStore.close(),
    };
    const gateway = await createGateway({
      config,
      env,
      logger: pino({ level: "silent" }),
      instanceLabel: `replica-${i}`,
      storage,
    });
    const app = await gateway.http();
    replicas.push({ gateway, app, base: await app.listen({ host: "127.0.0.1", port: 0 }) });
  }
  return replicas;
}

export async function stopReplicas(replicas: readonly Replica[]): Promise<void> {
  for (const replica of replicas) {
    await replica.app.close();
    await replica.gateway.shutdown();
  }
}

/** A round-robin HTTP proxy: each request goes to the next replica, as a load balancer without stickiness. */
export interface RoundRobin {
  readonly server: Server;
  /** Requests sent to each target so far. */
  readonly hits: number[];
  /** The proxy's base URL once listening. */
  readonly base: string;
  close(): Promise<void>;
}

export async function roundRobin(targets: readonly string[]): Promise<RoundRobin> {
  const hits = targets.map(() => 0);
  let next = 0;
  const server = createServer((req, res) => {
    const index = next++ % targets.length;
    hits[index] = (hits[index] ?? 0) + 1;
    const target = new URL(req.url ?? "/", targets[index]);
    const upstream = httpRequest(
      target,
      { method: req.method, headers: { ...req.headers, host: target.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    server,
    hits,
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
