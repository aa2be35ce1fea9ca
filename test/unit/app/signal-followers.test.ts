import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { SignalFollowers } from "../../../src/app/signal-followers.js";

describe("signal followers", () => {
  it("abort with the parent's reason, while the parent holds one listener for all of them", () => {
    const parent = new AbortController();
    const followers = new SignalFollowers(parent.signal);
    const contexts = Array.from({ length: 50 }, () => followers.follow({ id: 1, signal: parent.signal }));
    for (const ctx of contexts) for (let i = 0; i < 2; i++) ctx.signal.addEventListener("abort", () => {});
    expect(getEventListeners(parent.signal, "abort")).toHaveLength(1);
    expect(contexts.every((ctx) => ctx.id === 1 && ctx.signal !== parent.signal && !ctx.signal.aborted)).toBe(
      true,
    );

    const reason = new Error("caller gone");
    parent.abort(reason);
    expect(contexts.every((ctx) => ctx.signal.aborted && ctx.signal.reason === reason)).toBe(true);
  });

  it("let go of the parent once released: a later abort reaches none of them", () => {
    const parent = new AbortController();
    const followers = new SignalFollowers(parent.signal);
    const ctx = followers.follow({ signal: parent.signal });
    followers.release();
    expect(getEventListeners(parent.signal, "abort")).toHaveLength(0);
    parent.abort();
    expect(ctx.signal.aborted).toBe(false);
  });

  it("hand back the context itself when there is no parent or it has already aborted", () => {
    const none = {};
    expect(new SignalFollowers(undefined).follow(none)).toBe(none);
    const aborted = { signal: AbortSignal.abort() };
    const followers = new SignalFollowers(aborted.signal);
    expect(followers.follow(aborted)).toBe(aborted);
    expect(getEventListeners(aborted.signal, "abort")).toHaveLength(0);
  });
});
