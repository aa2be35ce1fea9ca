import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryApiKeyRepository } from "../../../src/adapters/store/memory/memory-api-key-repository.js";
import { NodeHasher } from "../../../src/adapters/system/node-hasher.js";
import {
  type Authentication,
  Authenticator,
  KEY_EXPIRED,
  KEY_REVOKED,
  NO_CREDENTIALS,
} from "../../../src/app/auth/authenticator.js";
import { CachedApiKeyRepository } from "../../../src/app/auth/cached-api-keys.js";
import type { ApiKeyRecord } from "../../../src/app/ports/api-key-repository.js";
import { ManualClock } from "../../support/fleet.js";

const hasher = new NodeHasher();
const TTL_MS = 1000;

/** The memory store, counting the key lookups that reach it. */
class CountingStore extends MemoryApiKeyRepository {
  lookups = 0;
  /** When set, lookups wait for it before answering. */
  gate: Promise<void> | null = null;

  override async findByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    this.lookups++;
    const found = await super.findByHash(keyHash);
    if (this.gate) await this.gate;
    return found;
  }
}

interface Setup {
  clock: ManualClock;
  store: CountingStore;
  cache: CachedApiKeyRepository;
  authenticator: Authenticator;
  /** Stores a key for `principal` and answers it raw. */
  issue(principal: string, options?: { expiresInSeconds?: number }): Promise<{ raw: string; keyId: string }>;
  auth(raw: string): Promise<Authentication>;
}

const open: Authenticator[] = [];
afterEach(async () => {
  for (const authenticator of open.splice(0)) await authenticator.close();
});

function setup(maxEntries = 10_000): Setup {
  const clock = new ManualClock();
  const store = new CountingStore();
  const cache = new CachedApiKeyRepository(store, clock, { ttlMs: TTL_MS, maxEntries });
  const authenticator = new Authenticator({
    apiKeys: cache,
    hasher,
    clock,
    logger: pino({ level: "silent" }),
    apiKeysEnabled: true,
    tokens: null,
    allowAnonymous: false,
    lockout: null,
  });
  open.push(authenticator);
  let n = 0;
  return {
    clock,
    store,
    cache,
    authenticator,
    async issue(principal, options = {}) {
      const raw = `mcp_${principal}_${++n}_${"x".repeat(16)}`;
      const keyId = `key-${principal}-${n}`;
      const now = clock.now() / 1000;
      await cache.create({
        key_id: keyId,
        key_hash: hasher.sha256Hex(raw),
        principal_id: principal,
        name: principal,
        created_by: "test",
        created_at: now,
        expires_at: options.expiresInSeconds === undefined ? null : now + options.expiresInSeconds,
        tenant_id: null,
      });
      return { raw, keyId };
    },
    auth: async (raw) => authenticator.authenticate({ apiKey: raw, clientAddress: "127.0.0.1" }),
  };
}

const revocation = (clock: ManualClock) => ({
  revoked_by: "admin",
  reason: "leaked",
  at: clock.now() / 1000,
});

describe("the API-key cache", () => {
  it("answers a key from memory within its TTL and reads the store again after it", async () => {
    const { store, clock, issue, auth } = setup();
    const { raw } = await issue("alice");
    for (let i = 0; i < 5; i++) expect((await auth(raw)).ok).toBe(true);
    expect(store.lookups).toBe(1);
    clock.advance(TTL_MS);
    expect((await auth(raw)).ok).toBe(true);
    expect(store.lookups).toBe(2);
  });

  it("judges a key it holds at once, without a promise, and a key it must read through one", async () => {
    const { clock, issue, authenticator } = setup();
    const { raw } = await issue("alice");
    const request = { apiKey: raw, clientAddress: "127.0.0.1" };
    const first = authenticator.authenticate(request);
    expect(first).toBeInstanceOf(Promise);
    expect((await first).ok).toBe(true);
    const held = authenticator.authenticate(request);
    expect(held).not.toBeInstanceOf(Promise);
    expect(held).toMatchObject({ ok: true, principal: { id: "alice", type: "api_key" } });
    clock.advance(TTL_MS);
    expect(authenticator.authenticate(request)).toBeInstanceOf(Promise);
    // Without a key or with a malformed one nothing is read either.
    expect(authenticator.authenticate({ clientAddress: "127.0.0.1" })).toEqual({
      ok: false,
      message: NO_CREDENTIALS,
      method: "none",
    });
  });

  it("refuses a key revoked through it on the very next request", async () => {
    const { cache, clock, issue, auth } = setup();
    const { raw, keyId } = await issue("alice");
    expect((await auth(raw)).ok).toBe(true);
    await cache.revoke(keyId, revocation(clock));
    expect(await auth(raw)).toMatchObject({ ok: false, message: KEY_REVOKED });
  });

  it("refuses a key revoked directly in the store (another replica) once the TTL has passed", async () => {
    const { store, clock, issue, auth } = setup();
    const { raw, keyId } = await issue("alice");
    expect((await auth(raw)).ok).toBe(true);
    await store.revoke(keyId, revocation(clock));
    // Within the TTL the entry read before the revocation still answers: the documented bound.
    clock.advance(TTL_MS - 1);
    expect((await auth(raw)).ok).toBe(true);
    clock.advance(1);
    expect(await auth(raw)).toMatchObject({ ok: false, message: KEY_REVOKED });
  });

  it("checks expiry against the clock on every request, cached or not", async () => {
    const { store, clock, issue, auth } = setup();
    const { raw } = await issue("alice", { expiresInSeconds: 0.5 });
    expect((await auth(raw)).ok).toBe(true);
    clock.advance(500);
    expect(await auth(raw)).toMatchObject({ ok: false, message: KEY_EXPIRED });
    expect(store.lookups).toBe(1);
  });

  it("does not cache an unknown key: a key created afterwards works at once", async () => {
    const { store, cache, auth } = setup();
    const raw = "mcp_later_key_0123456789";
    expect(await auth(raw)).toMatchObject({ ok: false, message: NO_CREDENTIALS });
    await store.create({
      key_id: "later",
      key_hash: hasher.sha256Hex(raw),
      principal_id: "bob",
      name: "later",
      created_by: "test",
      created_at: 0,
      expires_at: null,
      tenant_id: null,
    });
    expect(await auth(raw)).toMatchObject({ ok: true, principal: { id: "bob", type: "api_key" } });
    expect(cache.size).toBe(1);
  });

  it("does not keep what a lookup read while the key was being revoked", async () => {
    const { store, cache, clock, issue, auth } = setup();
    const { raw, keyId } = await issue("alice");
    let release = () => {};
    store.gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The lookup reads the key before the revocation, and answers after it.
    const racing = auth(raw);
    await cache.revoke(keyId, revocation(clock));
    release();
    expect((await racing).ok).toBe(true);
    store.gate = null;
    expect(await auth(raw)).toMatchObject({ ok: false, message: KEY_REVOKED });
  });

  it("holds at most maxEntries keys, dropping the oldest", async () => {
    const { store, cache, issue, auth } = setup(2);
    const first = await issue("a");
    const second = await issue("b");
    const third = await issue("c");
    for (const key of [first, second, third]) expect((await auth(key.raw)).ok).toBe(true);
    expect(cache.size).toBe(2);
    expect(store.lookups).toBe(3);
    // The newest two are still answered from memory; the first is read again.
    await auth(second.raw);
    await auth(third.raw);
    expect(store.lookups).toBe(3);
    await auth(first.raw);
    expect(store.lookups).toBe(4);
  });
});
