import { resolve } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "../support/api-keys.js";
import { startTestGateway, type TestGateway, waitFor } from "../support/gateway.js";
import {
  envelope,
  STATELESS_REVISION as REVISION,
  type StatelessAnswer,
  statelessPost,
} from "../support/stateless-post.js";

/**
 * A 2026-07-28 (stateless) client through the front door to an upstream of revision 2025-11-25
 * that asks its client for input mid-call (the dual-era fixture, a child process, which the gateway
 * speaks 2025-11-25 to): the upstream's `elicitation/create`, `sampling/createMessage` and
 * `roots/list` come back as `input_required` results, and the retry's `inputResponses` answer them.
 */

const FIXTURE = resolve("test/fixtures/conformance-dual-era.mjs");
const ALL_CAPABILITIES = { elicitation: {}, sampling: {}, roots: {} };

const YAML = `
tool_access: {mode: front_door}
auth:
  enabled: true
  role_assignments:
    - {principal: alice, role: service-account}
    - {principal: bob, role: service-account}
mcp_servers:
  fixture:
    command: [node, ${JSON.stringify(FIXTURE)}, stdio]
`;

/** One stateless `tools/call` of `name` by the holder of `key`, declaring `capabilities`. */
function call(
  baseUrl: string,
  key: string,
  name: string,
  extra: Record<string, unknown> = {},
  capabilities: Record<string, unknown> = ALL_CAPABILITIES,
): Promise<StatelessAnswer> {
  return statelessPost(
    baseUrl,
    "tools/call",
    { name, arguments: {}, ...extra },
    { id: 11, headers: { "x-api-key": key }, meta: envelope(capabilities) },
  );
}

const textOf = (result: Record<string, unknown> | undefined) =>
  ((result?.content ?? []) as { text?: string }[]).map((block) => block.text).join("");

describe("input_required through the front door to a 2025-11-25 upstream", () => {
  let gw: TestGateway;
  let baseUrl: string;
  let alice: string;
  let bob: string;
  beforeAll(async () => {
    gw = await startTestGateway(YAML);
    baseUrl = await gw.app.listen({ host: "127.0.0.1", port: 0 });
    gw.gateway.startBackground();
    alice = await createApiKey(gw, "alice");
    bob = await createApiKey(gw, "bob");
    await waitFor(async () => {
      const listed = await call(baseUrl, alice, "test_simple_text");
      return textOf(listed.body.result).length > 0;
    }, 20_000);
  }, 30_000);
  afterAll(async () => {
    await gw?.close();
  });

  it("turns the upstream's elicitation into input_required, and the retry's answer into the result", async () => {
    const first = await call(baseUrl, alice, "test_input_required_result_elicitation");
    expect(first.status).toBe(200);
    expect(first.body.id).toBe(11);
    expect(first.body.result).toMatchObject({
      resultType: "input_required",
      inputRequests: { elicitation_1: { method: "elicitation/create" } },
      requestState: expect.any(String),
    });
    expect(first.body.result).not.toHaveProperty("ttlMs");
    const retry = await call(baseUrl, alice, "test_input_required_result_elicitation", {
      inputResponses: { elicitation_1: { action: "accept", content: { name: "Alice" } } },
      requestState: first.body.result?.requestState,
    });
    expect(retry.body.result?.resultType).toBe("complete");
    expect(textOf(retry.body.result)).toBe("Hello, Alice!");
  });

  it("asks round after round, each answer handed to the upstream's waiting request", async () => {
    const tool = "test_input_required_result_multi_round";
    const first = await call(baseUrl, alice, tool);
    expect(Object.keys(first.body.result?.inputRequests ?? {})).toEqual(["elicitation_1"]);
    const second = await call(baseUrl, alice, tool, {
      inputResponses: { elicitation_1: { action: "accept", content: { name: "Ada" } } },
      requestState: first.body.result?.requestState,
    });
    expect(second.body.result?.resultType).toBe("input_required");
    expect(Object.keys(second.body.result?.inputRequests ?? {})).toEqual(["elicitation_2"]);
    const third = await call(baseUrl, alice, tool, {
      inputResponses: { elicitation_2: { action: "accept", content: { color: "green" } } },
      requestState: second.body.result?.requestState,
    });
    expect(textOf(third.body.result)).toBe("Hello Ada, your favourite colour is green");
  });

  it("lists what the upstream asks at once, and asks what came later in the next round", async () => {
    const tool = "test_input_required_result_multiple_inputs";
    const answerTo = (method: string) =>
      method === "elicitation/create"
        ? { action: "accept", content: { name: "Ada" } }
        : method === "roots/list"
          ? { roots: [{ uri: "file:///work" }] }
          : { role: "assistant", content: { type: "text", text: "Hi" }, model: "m", stopReason: "endTurn" };
    // The upstream sends its three requests together: one round as a rule, more when one of them
    // comes after the round was answered (a loaded machine).
    const asked: string[] = [];
    let answer = await call(baseUrl, alice, tool);
    for (let round = 0; round < 3 && answer.body.result?.resultType === "input_required"; round++) {
      const requests = answer.body.result?.inputRequests ?? {};
      const answers = Object.fromEntries(
        Object.entries(requests).map(([key, request]) => [key, answerTo(request.method)]),
      );
      asked.push(...Object.values(requests).map((request) => request.method));
      answer = await call(baseUrl, alice, tool, {
        inputResponses: answers,
        requestState: answer.body.result?.requestState,
      });
    }
    expect(asked.sort()).toEqual(["elicitation/create", "roots/list", "sampling/createMessage"]);
    expect(textOf(answer.body.result)).toBe("All inputs received");
  });

  it("asks again for an input the retry did not answer", async () => {
    const first = await call(baseUrl, alice, "test_input_required_result_elicitation");
    const retry = await call(baseUrl, alice, "test_input_required_result_elicitation", {
      inputResponses: { unrelated: { action: "accept" } },
      requestState: first.body.result?.requestState,
    });
    expect(retry.body.result).toMatchObject({
      resultType: "input_required",
      inputRequests: { elicitation_1: { method: "elicitation/create" } },
    });
  });

  it("refuses a tampered requestState with -32602 and hands nothing to the upstream", async () => {
    const first = await call(baseUrl, alice, "test_input_required_result_elicitation");
    const state = String(first.body.result?.requestState);
    const [version, body, mac] = state.split(".");
    const payload = JSON.parse(Buffer.from(String(body), "base64url").toString("utf8"));
    const forged = Buffer.from(JSON.stringify({ ...payload, principal: "bob" })).toString("base64url");
    for (const tampered of [`${state}-TAMPERED`, `${version}.${forged}.${mac}`]) {
      const retry = await call(baseUrl, alice, "test_input_required_result_elicitation", {
        inputResponses: { elicitation_1: { action: "accept", content: { name: "Mallory" } } },
        requestState: tampered,
      });
      expect(retry.body.error?.code).toBe(-32602);
      expect(retry.body.error?.message).toContain("requestState");
    }
  });

  it("refuses another principal's requestState, and one of another tool", async () => {
    const first = await call(baseUrl, alice, "test_input_required_result_elicitation");
    const answers = { elicitation_1: { action: "accept", content: { name: "Bob" } } };
    const asBob = await call(baseUrl, bob, "test_input_required_result_elicitation", {
      inputResponses: answers,
      requestState: first.body.result?.requestState,
    });
    expect(asBob.body.error).toMatchObject({
      code: -32602,
      message: expect.stringContaining("another request"),
    });
    const otherTool = await call(baseUrl, alice, "test_streaming_elicitation", {
      inputResponses: answers,
      requestState: first.body.result?.requestState,
    });
    expect(otherTool.body.error?.code).toBe(-32602);
    // The rightful retry still completes.
    const retry = await call(baseUrl, alice, "test_input_required_result_elicitation", {
      inputResponses: { elicitation_1: { action: "accept", content: { name: "Alice" } } },
      requestState: first.body.result?.requestState,
    });
    expect(textOf(retry.body.result)).toBe("Hello, Alice!");
  });

  it("refuses an answer of the wrong shape with -32602 naming it", async () => {
    const first = await call(baseUrl, alice, "test_input_required_result_elicitation");
    const retry = await call(baseUrl, alice, "test_input_required_result_elicitation", {
      inputResponses: { elicitation_1: { action: "maybe" } },
      requestState: first.body.result?.requestState,
    });
    expect(retry.body.error).toMatchObject({
      code: -32602,
      message: expect.stringContaining("inputResponses.elicitation_1.action"),
    });
  });

  it("answers -32021 with 400 when the upstream asks for a capability the client did not declare", async () => {
    const answer = await call(baseUrl, alice, "test_missing_capability", {}, {});
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { sampling: {} } },
    });
  });

  it("serves an SDK v2 client, whose own handlers answer the rounds", async () => {
    const client = new Client(
      { name: "input-required-client", version: "1.0.0" },
      { versionNegotiation: { mode: "auto" }, capabilities: { elicitation: {}, sampling: {} } },
    );
    client.setRequestHandler("elicitation/create", async () => ({
      action: "accept",
      content: { name: "Grace" },
    }));
    client.setRequestHandler("sampling/createMessage", async () => ({
      role: "assistant",
      content: { type: "text", text: "Paris" },
      model: "test-model",
      stopReason: "endTurn",
    }));
    await client.connect(
      new StreamableHTTPClientTransport(new URL("/mcp", baseUrl), {
        requestInit: { headers: { "x-api-key": alice } },
      }),
    );
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(REVISION);
      const greeted = await client.callTool({
        name: "test_input_required_result_elicitation",
        arguments: {},
      });
      expect(textOf(greeted as Record<string, unknown>)).toBe("Hello, Grace!");
      const sampled = await client.callTool({ name: "test_input_required_result_sampling", arguments: {} });
      expect(textOf(sampled as Record<string, unknown>)).toBe("Model answered: Paris");
    } finally {
      await client.close();
    }
  });
});
