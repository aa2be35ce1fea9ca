import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, expect, it } from "vitest";
import { openPostgres, type PostgresStore } from "../../src/adapters/store/postgres/open-postgres.js";
import { sqlRepositories } from "../../src/adapters/store/sql/sql-repositories.js";
import {
  adminQuery,
  DATABASE_URL,
  describePostgres,
  postgresProxy,
  postgresSettings,
} from "../support/backends.js";
import { type ServingGateway, serveHttp, writeTempConfig } from "../support/cli.js";
import { isAlive } from "../support/processes.js";
import type { TcpProxy } from "../support/tcp-proxy.js";

/** Short lease settings within the rules (deadline < TTL, interval x 1.2 < deadline). */
const LEASE_TTL_S = 3;
const RENEW_INTERVAL_S = 0.5;
const RENEW_DEADLINE_S = 2;
/** Scheduling slack of two loaded cores, as in replicas.test.ts. */
const MARGIN_MS = 1_500;
const LEASE = "management";

interface Replica extends ServingGateway {
  instanceId: string;
  proxy: TcpProxy;
}

const schema = `t_lease_outage_${randomBytes(5).toString("hex")}`;
const running: Replica[] = [];

/** A replica of the built CLI whose database connections go through a proxy of its own. */
async function startReplica(): Promise<Replica> {
  const proxy = await postgresProxy();
  const gateway = await serveHttp(
    writeTempConfig(`
persistence:
  backend: postgresql
  readiness_grace_s: 1
  postgresql: ${JSON.stringify(postgresSettings({ schema, proxy }))}
coordination:
  lease_ttl_s: ${LEASE_TTL_S}
  renew_interval_s: ${RENEW_INTERVAL_S}
  renew_deadline_s: ${RENEW_DEADLINE_S}
`),
  );
  const instance = await managesFleet(gateway);
  if (instance === undefined) throw new Error("a replica did not answer /api/system");
  const body = (await (await fetch(new URL("/api/system/", gateway.baseUrl))).json()) as {
    system: { instance: { instance_id: string } };
  };
  const replica = { ...gateway, proxy, instanceId: body.system.instance.instance_id };
  running.push(replica);
  return replica;
}

/** Whether the replica says it manages the fleet; undefined when it does not answer. */
async function managesFleet(replica: ServingGateway): Promise<boolean | undefined> {
  try {
    const response = await fetch(new URL("/api/system/", replica.baseUrl), {
      signal: AbortSignal.timeout(1_000),
    });
    if (response.status !== 200) return undefined;
    return ((await response.json()) as { system: { instance: { manages_fleet: boolean } } }).system.instance
      .manages_fleet;
  } catch {
    return undefined;
  }
}

/**
 * Samples who manages the fleet every 50 ms while `during` runs; throws at once if two replicas say
 * so in the same sample. Resolves to each sample's managers.
 */
async function watchManagers(
  replicas: readonly Replica[],
  during: () => Promise<void>,
): Promise<{ at: number; managers: string[] }[]> {
  const samples: { at: number; managers: string[] }[] = [];
  let done = false;
  const watching = (async () => {
    while (!done) {
      const at = performance.now();
      const answers = await Promise.all(replicas.map(managesFleet));
      const managers = replicas.filter((_, i) => answers[i] === true).map((r) => r.instanceId);
      samples.push({ at, managers });
      if (managers.length > 1) throw new Error(`${managers.length} replicas manage the fleet at once`);
      await sleep(50);
    }
  })();
  try {
    await during();
  } finally {
    done = true;
  }
  await watching;
  return samples;
}

async function soleManager(replicas: readonly Replica[], timeoutMs: number): Promise<Replica> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    const answers = await Promise.all(replicas.map(managesFleet));
    const found = replicas.filter((_, i) => answers[i] === true);
    if (found.length === 1) return found[0]!;
    if (found.length > 1) throw new Error(`${found.length} replicas manage the fleet at once`);
    await sleep(50);
  }
  throw new Error(`no replica managed the fleet within ${timeoutMs} ms`);
}

const SLOW = { timeout: 90_000 };

await describePostgres("replicas of the built CLI whose database goes away", () => {
  let store: PostgresStore<unknown>;
  /** Two replicas for both tests: starting the built CLI is the slow part. */
  let replicas: Replica[];

  beforeAll(async () => {
    await adminQuery(`create schema ${schema}`);
    store = await openPostgres({ connection: { connectionString: DATABASE_URL }, schema, maxConnections: 2 });
    // The first migrates the fresh schema, then the second joins.
    replicas = [await startReplica(), await startReplica()];
  }, 60_000);

  afterAll(async () => {
    for (const replica of running.splice(0)) {
      replica.child.kill("SIGKILL");
      await replica.exited;
      await replica.proxy.close();
    }
    await store?.close();
    await adminQuery(`drop schema if exists ${schema} cascade`);
  });

  const lease = () => sqlRepositories(store).lease;

  it(
    "steps the holder down when it cannot renew, lets the peer take over, and never has two managers",
    SLOW,
    async () => {
      const holder = await soleManager(replicas, (LEASE_TTL_S + RENEW_INTERVAL_S) * 1000 + MARGIN_MS);
      const peer = replicas.find((replica) => replica !== holder)!;
      const before = await lease().read(LEASE);
      let steppedDownMs = 0;
      let takenOverMs = 0;
      const samples = await watchManagers(replicas, async () => {
        const dropAt = performance.now();
        await holder.proxy.drop();
        while (steppedDownMs === 0 || takenOverMs === 0) {
          const elapsed = performance.now() - dropAt;
          if (elapsed > (LEASE_TTL_S + RENEW_INTERVAL_S) * 1000 + MARGIN_MS * 2) break;
          if (steppedDownMs === 0 && (await managesFleet(holder)) === false) steppedDownMs = elapsed;
          if (takenOverMs === 0 && (await managesFleet(peer)) === true) takenOverMs = elapsed;
          await sleep(50);
        }
        await holder.proxy.accept();
        // A few renewals after the database returns to the old holder: it stays a follower.
        await sleep(RENEW_INTERVAL_S * 6 * 1000);
      });
      console.info(
        `holder cut off from the database: stepped down after ${Math.round(steppedDownMs)} ms ` +
          `(renew_deadline_s ${RENEW_DEADLINE_S}), peer took over after ${Math.round(takenOverMs)} ms`,
      );
      expect(steppedDownMs).toBeGreaterThan(0);
      expect(steppedDownMs).toBeLessThan(RENEW_DEADLINE_S * 1000 + MARGIN_MS);
      expect(takenOverMs).toBeGreaterThan(steppedDownMs);
      expect(samples.every((sample) => sample.managers.length <= 1)).toBe(true);
      expect(samples.at(-1)?.managers).toEqual([peer.instanceId]);
      const after = await lease().read(LEASE);
      expect(after?.holder).toBe(peer.instanceId);
      expect(after!.generation).toBeGreaterThan(before!.generation);
      for (const replica of replicas) expect(isAlive(replica.child.pid!)).toBe(true);
    },
  );

  it(
    "leaves the fleet unmanaged while the database is away from every replica, and to exactly one after",
    SLOW,
    async () => {
      await soleManager(replicas, (LEASE_TTL_S + RENEW_INTERVAL_S) * 1000 + MARGIN_MS);
      const dropMs = LEASE_TTL_S * 1000 + 1_000;
      let dropAt = 0;
      let acceptAt = 0;
      const samples = await watchManagers(replicas, async () => {
        dropAt = performance.now();
        await Promise.all(replicas.map((replica) => replica.proxy.drop()));
        await sleep(dropMs);
        acceptAt = performance.now();
        await Promise.all(replicas.map((replica) => replica.proxy.accept()));
        await soleManager(replicas, (LEASE_TTL_S + RENEW_INTERVAL_S) * 1000 + MARGIN_MS * 2);
        console.info(
          `database away from both replicas for ${dropMs} ms: one manager again ` +
            `${Math.round(performance.now() - acceptAt)} ms after it returned`,
        );
        await sleep(RENEW_INTERVAL_S * 4 * 1000);
      });
      // Past its deadline the holder has stepped down, and nobody can be elected without the database.
      const unmanaged = samples.filter(
        (s) => s.at > dropAt + RENEW_DEADLINE_S * 1000 + MARGIN_MS && s.at < acceptAt,
      );
      expect(unmanaged.length).toBeGreaterThan(0);
      expect(unmanaged.every((sample) => sample.managers.length === 0)).toBe(true);
      expect(samples.every((sample) => sample.managers.length <= 1)).toBe(true);
      const last = samples.at(-1)!.managers;
      expect(last).toHaveLength(1);
      expect((await lease().read(LEASE))?.holder).toBe(last[0]);
      for (const replica of replicas) expect(isAlive(replica.child.pid!)).toBe(true);
    },
  );
});
