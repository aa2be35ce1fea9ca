import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { AskClient } from "../../../src/edges/mcp/front-door/held-request.js";
import { InputRounds, type StatelessInput } from "../../../src/edges/mcp/front-door/input-rounds.js";
import { RequestStateCodec } from "../../../src/edges/mcp/front-door/request-state.js";

const key = randomBytes(32);
const codec = () => new RequestStateCodec(async () => key);
const ALL = { elicitation: {}, sampling: {}, roots: {} };

/** An upstream request that asks for a name, then a colour, and counts how often it ran. */
function twoQuestions() {
  const counter = { runs: 0 };
  const run = async (ask: AskClient, signal: AbortSignal) => {
    counter.runs++;
    const name = await ask("elicitation/create", { message: "name?" }, signal);
    const colour = await ask("elicitation/create", { message: "colour?" }, signal);
    return { content: [{ type: "text", text: `${JSON.stringify(name)} ${JSON.stringify(colour)}` }] };
  };
  return { counter, run };
}

const input = (over: Partial<StatelessInput> = {}): StatelessInput => ({
  capabilities: ALL,
  responses: undefined,
  state: undefined,
  ...over,
});

const request = (over: Partial<StatelessInput> = {}) => ({
  method: "tools/call",
  name: "ask",
  args: { a: 1 },
  principal: "alice",
  input: input(over),
});

const admitted = async () => {};

describe("InputRounds", () => {
  it("holds the request and hands a retry's answers to it: the upstream runs once", async () => {
    const rounds = new InputRounds(codec());
    const { counter, run } = twoQuestions();
    const first = await rounds.serve(request(), admitted, run);
    expect(first).toMatchObject({
      resultType: "input_required",
      inputRequests: { elicitation_1: { method: "elicitation/create", params: { message: "name?" } } },
    });
    const second = await rounds.serve(
      request({ responses: { elicitation_1: { action: "accept" } }, state: String(first.requestState) }),
      admitted,
      run,
    );
    expect(Object.keys(second.inputRequests as object)).toEqual(["elicitation_2"]);
    const done = await rounds.serve(
      request({ responses: { elicitation_2: { action: "decline" } }, state: String(second.requestState) }),
      admitted,
      run,
    );
    expect(done).toEqual({ content: [{ type: "text", text: '{"action":"accept"} {"action":"decline"}' }] });
    expect(counter.runs).toBe(1);
    expect(rounds.size).toBe(0);
  });

  it("runs the request again elsewhere, answering the upstream from the answers the state carries", async () => {
    const { run } = twoQuestions();
    const issuing = new InputRounds(codec());
    const first = await issuing.serve(request(), admitted, run);
    const second = await issuing.serve(
      request({ responses: { elicitation_1: { action: "accept" } }, state: String(first.requestState) }),
      admitted,
      run,
    );
    // Another replica: same key, nothing held.
    const other = new InputRounds(codec());
    const again = twoQuestions();
    const done = await other.serve(
      request({ responses: { elicitation_2: { action: "cancel" } }, state: String(second.requestState) }),
      admitted,
      again.run,
    );
    expect(done).toEqual({ content: [{ type: "text", text: '{"action":"accept"} {"action":"cancel"}' }] });
    expect(again.counter.runs).toBe(1);
    issuing.close();
  });

  it("admits a retry of a held request before handing its answers on", async () => {
    const rounds = new InputRounds(codec());
    const { run } = twoQuestions();
    const first = await rounds.serve(request(), admitted, run);
    const refusal = new Error("refused");
    await expect(
      rounds.serve(
        request({ responses: { elicitation_1: { action: "accept" } }, state: String(first.requestState) }),
        async () => {
          throw refusal;
        },
        run,
      ),
    ).rejects.toBe(refusal);
    rounds.close();
  });

  it("refuses a state that expired, or that another key signed", async () => {
    let now = 1_000_000;
    const rounds = new InputRounds(codec(), () => now);
    const { run } = twoQuestions();
    const first = await rounds.serve(request(), admitted, run);
    const state = String(first.requestState);
    const foreign = new InputRounds(new RequestStateCodec(async () => randomBytes(32)));
    await expect(foreign.serve(request({ state }), admitted, run)).rejects.toThrow(/integrity/);
    now += 11 * 60 * 1000;
    await expect(rounds.serve(request({ state }), admitted, run)).rejects.toThrow(/expired/);
    rounds.close();
  });

  it("stops the request and names the capabilities the client lacks", async () => {
    const rounds = new InputRounds(codec());
    let aborted = false;
    const run = async (ask: AskClient, signal: AbortSignal) => {
      signal.addEventListener("abort", () => {
        aborted = true;
      });
      await ask("sampling/createMessage", {}, signal).catch(() => undefined);
      return new Promise<Record<string, unknown>>(() => {});
    };
    await expect(
      rounds.serve(request({ capabilities: { elicitation: {} } }), admitted, run),
    ).rejects.toMatchObject({
      type: "MissingRequiredClientCapabilityError",
      details: { requiredCapabilities: { sampling: {} } },
    });
    expect(aborted).toBe(true);
  });

  it("answers a request that needs no input with its result", async () => {
    const rounds = new InputRounds(codec());
    const result = await rounds.serve(request(), admitted, async () => ({ content: [] }));
    expect(result).toEqual({ content: [] });
    expect(rounds.size).toBe(0);
  });
});
