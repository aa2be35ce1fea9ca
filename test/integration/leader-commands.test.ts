import { afterAll, beforeAll, expect, it } from "vitest";
import { z } from "zod";
import { sqlRepositories } from "../../src/adapters/store/sql/sql-repositories.js";
import type { SqlStore } from "../../src/adapters/store/sql-store.js";
import { NodeIdGenerator } from "../../src/adapters/system/node-ids.js";
import { SystemClock } from "../../src/adapters/system/system-clock.js";
import type { RequestContext } from "../../src/app/context.js";
import { LeaderCommands } from "../../src/app/coordination/leader-commands.js";
import type { Leadership, LeaseTerm } from "../../src/app/coordination/leadership.js";
import { defineOperation, type Operation } from "../../src/app/operation.js";
import type { LeaderCommandQueue } from "../../src/app/ports/leader-command-queue.js";
import type { LeaseStore } from "../../src/app/ports/lease-store.js";
import type { AppServices } from "../../src/app/services.js";
import { GatewayError, RequestRejected } from "../../src/domain/errors.js";
import { describePostgres, freshPostgres } from "../support/backends.js";

const LEASE = "management";
const silent = { info() {}, warn() {}, error() {}, debug() {}, child: () => silent } as never;

/** A replica's standing as the lease row says: leader while the term it acquired is its own. */
class TestLeadership implements Leadership {
  held: LeaseTerm | undefined;
  constructor(readonly holder: string) {}
  get isLeader(): boolean {
    return this.held !== undefined;
  }
  term(): LeaseTerm | undefined {
    return this.held;
  }
  onChange(): () => void {
    return () => {};
  }
}

const seen: Array<{ input: unknown; caller: RequestContext }> = [];
const operations: Operation[] = [
  defineOperation({
    name: "echo-on-leader",
    kind: "command",
    summary: "test",
    permissions: [],
    leaderOnly: true,
    input: z.object({ word: z.string() }),
    async run(services, input, ctx) {
      seen.push({ input, caller: ctx });
      return { word: input.word, ran_on: services.instance.instance_id };
    },
  }),
  defineOperation({
    name: "refuse-on-leader",
    kind: "command",
    summary: "test",
    permissions: [],
    leaderOnly: true,
    input: z.object({ flat: z.boolean() }),
    async run(_services, input) {
      if (input.flat)
        throw new RequestRejected(400, "invalid_mode", "mode must be additive or authoritative");
      throw new GatewayError("ValidationError", "name is not quarantined", { field: "name" }, 400);
    },
  }),
];

await describePostgres("leader-only commands asked of a follower", () => {
  let store: SqlStore<unknown> & { schema: string };
  let queue: LeaderCommandQueue;
  let lease: LeaseStore;
  const leaderSide = new TestLeadership("replica-a");
  const followerSide = new TestLeadership("replica-b");
  const make = (leadership: TestLeadership, unclaimedTimeoutMs = 5_000) =>
    new LeaderCommands({
      queue,
      leadership,
      lease: LEASE,
      ids: new NodeIdGenerator(),
      clock: new SystemClock(),
      logger: silent,
      operations: new Map(operations.map((op) => [op.name, op])),
      services: () => ({ instance: { instance_id: leadership.holder } }) as unknown as AppServices,
      timing: { outcomePollMs: 10, unclaimedTimeoutMs },
    });
  const caller: RequestContext = {
    principal: { id: "ops", type: "api_key", tenant_id: "acme", roles: ["admin"] },
    authenticated: true,
    channel: "rest",
    confinedTo: "acme",
    clientAddress: "10.0.0.7",
  };

  /** Runs the leader's passes until `work` settles. */
  async function withLeaderDraining<T>(leader: LeaderCommands, work: Promise<T>): Promise<T> {
    let done = false;
    const settled = work.finally(() => {
      done = true;
    });
    // Awaited below, after the loop: until then a refusal must not count as unhandled.
    settled.catch(() => undefined);
    while (!done) {
      await leader.drain();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return settled;
  }

  beforeAll(async () => {
    store = await freshPostgres();
    const repositories = sqlRepositories(store);
    queue = repositories.leaderCommands!;
    lease = repositories.lease;
    const attempt = await lease.acquire(LEASE, "replica-a", 30);
    if (!attempt.acquired) throw new Error("the test lease was not acquired");
    leaderSide.held = { name: LEASE, holder: "replica-a", generation: attempt.lease.generation };
  });

  afterAll(async () => {
    await store?.close();
  });

  it("runs a follower's command on the leader, with the caller the follower authorized", async () => {
    seen.length = 0;
    const leader = make(leaderSide);
    const follower = make(followerSide);
    const result = await withLeaderDraining(
      leader,
      follower.run(operations[0] as Operation<never, unknown>, { word: "hello" }, caller),
    );
    expect(result).toEqual({ word: "hello", ran_on: "replica-a" });
    expect(seen).toHaveLength(1);
    expect(seen[0]?.caller).toEqual(caller);
  });

  it("runs the command in place on the leader, without the queue", async () => {
    seen.length = 0;
    const leader = make(leaderSide);
    expect(await leader.run(operations[0] as Operation<never, unknown>, { word: "here" }, caller)).toEqual({
      word: "here",
      ran_on: "replica-a",
    });
    expect(await leader.drain()).toBe(0);
  });

  it("gives the follower's caller the leader's error with its type, status and details", async () => {
    const leader = make(leaderSide);
    const follower = make(followerSide);
    const refuse = operations[1] as Operation<never, unknown>;
    const domain = await withLeaderDraining(leader, follower.run(refuse, { flat: false }, caller)).catch(
      (e) => e,
    );
    expect(domain).toBeInstanceOf(GatewayError);
    expect(domain).toMatchObject({ type: "ValidationError", status: 400, details: { field: "name" } });
    const flat = await withLeaderDraining(leader, follower.run(refuse, { flat: true }, caller)).catch(
      (e) => e,
    );
    expect(flat).toBeInstanceOf(RequestRejected);
    expect(flat).toMatchObject({ status: 400, code: "invalid_mode" });
  });

  it("withdraws a command no leader took in time, so that it never runs later", async () => {
    seen.length = 0;
    const follower = make(followerSide, 200);
    const refusal = await follower
      .run(operations[0] as Operation<never, unknown>, { word: "orphan" }, caller)
      .catch((e) => e);
    expect(refusal).toMatchObject({ type: "McpServerNotHereError", status: 409 });
    expect(await make(leaderSide).drain()).toBe(0);
    expect(seen).toHaveLength(0);
  });

  it("stops waiting when the caller goes away after the leader claimed the command", async () => {
    const follower = make(followerSide);
    const caller$ = new AbortController();
    const asked = follower.run(
      operations[0] as Operation<never, unknown>,
      { word: "gone" },
      {
        ...caller,
        signal: caller$.signal,
      },
    );
    const term = leaderSide.held!;
    let claimed: { command_id: string }[] = [];
    while (claimed.length === 0) {
      claimed = await queue.claim({ lease: LEASE, holder: term.holder, generation: term.generation }, 5);
    }
    caller$.abort(new Error("client went away"));
    await expect(asked).rejects.toThrow("client went away");
    // The leader still answers it; nobody reads the answer.
    expect(await queue.complete(claimed[0]!.command_id, term.generation, { kind: "ok", output: null })).toBe(
      true,
    );
  });

  it("fences claims: a term the lease row no longer names claims nothing, the next term takes over", async () => {
    seen.length = 0;
    const follower = make(followerSide);
    const oldLeader = make(leaderSide);
    const asked = follower.run(operations[0] as Operation<never, unknown>, { word: "fenced" }, caller);
    // The old term is over: the lease expired and another replica took it (a new generation).
    const oldTerm = leaderSide.held!;
    await lease.release(LEASE, "replica-a", oldTerm.generation);
    const takeover = await lease.acquire(LEASE, "replica-c", 30);
    if (!takeover.acquired) throw new Error("takeover failed");
    // The old holder has not noticed yet: it still believes it leads, but claims nothing.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await oldLeader.drain()).toBe(0);
    const newSide = new TestLeadership("replica-c");
    newSide.held = { name: LEASE, holder: "replica-c", generation: takeover.lease.generation };
    expect(takeover.lease.generation).toBeGreaterThan(oldTerm.generation);
    const result = await withLeaderDraining(make(newSide), asked);
    expect(result).toEqual({ word: "fenced", ran_on: "replica-c" });
    expect(seen).toHaveLength(1);
  });

  it("lets the next term claim a command an ended term claimed but never answered", async () => {
    const current = await lease.read(LEASE);
    const holder = current!.holder;
    const generation = current!.generation;
    await queue.submit({
      command_id: "stranded",
      operation: "echo-on-leader",
      input: { word: "again" },
      caller: { ...caller, principal: { ...caller.principal } },
      requested_by: "replica-b",
    });
    const firstClaim = await queue.claim({ lease: LEASE, holder, generation }, 5);
    expect(firstClaim.map((c) => c.command_id)).toEqual(["stranded"]);
    // The same term does not claim it twice.
    expect(await queue.claim({ lease: LEASE, holder, generation }, 5)).toEqual([]);
    await lease.release(LEASE, holder, generation);
    const next = await lease.acquire(LEASE, "replica-d", 30);
    if (!next.acquired) throw new Error("takeover failed");
    const reclaimed = await queue.claim(
      { lease: LEASE, holder: "replica-d", generation: next.lease.generation },
      5,
    );
    expect(reclaimed.map((c) => c.command_id)).toEqual(["stranded"]);
    // The ended term's answer is refused; the current term's is kept.
    expect(await queue.complete("stranded", generation, { kind: "ok", output: "old" })).toBe(false);
    expect(await queue.complete("stranded", next.lease.generation, { kind: "ok", output: "new" })).toBe(true);
    expect(await queue.outcome("stranded")).toEqual({ kind: "ok", output: "new" });
  });
});
