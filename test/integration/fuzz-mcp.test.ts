import { resolve } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  anyJson,
  deepJsonText,
  expectNoStackText,
  FLEET_WITH_GROUP,
  FUZZ_RUNS,
  type FuzzTarget,
  hostileString,
  startFuzzTarget,
} from "../support/fuzz.js";
import { ARITHMETIC } from "../support/gateway.js";

/**
 * The MCP endpoint under hostile input, as an admin: every `gateway_*` tool with arguments of any
 * shape (egress), and raw JSON-RPC of any shape on `/mcp` (front door). No 5xx, no JSON-RPC
 * internal error, no internal text, and a refused request changes nothing (read back over REST).
 */

const RICH = resolve("test/fixtures/servers/rich.mjs");
const PROTOCOL = "2025-06-18";

interface Target extends FuzzTarget {
  baseUrl: string;
  sessionId: string;
}

const egress: Partial<Target> = {};
const frontDoor: Partial<Target> = {};

/** A registry nobody answers on: gateway_load fails fast instead of reaching out. */
const common = `hot_loading: {registry: {base_url: "http://127.0.0.1:9/", timeout_s: 1, max_retries: 0}}
`;

async function open(target: Partial<Target>, yaml: string): Promise<void> {
  const started = await startFuzzTarget(yaml);
  Object.assign(target, started, { baseUrl: await started.gw.app.listen({ host: "127.0.0.1", port: 0 }) });
  const response = await post(target as Target, {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: "fuzz", version: "1" } },
  });
  target.sessionId = response.headers.get("mcp-session-id") ?? "";
  expect(target.sessionId).not.toBe("");
  await post(target as Target, { jsonrpc: "2.0", method: "notifications/initialized" });
}

function post(
  target: Target,
  body: unknown,
  options: { raw?: string; headers?: Record<string, string>; session?: string | null } = {},
): Promise<Response> {
  const session = options.session === undefined ? target.sessionId : options.session;
  return fetch(new URL("/mcp", target.baseUrl), {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "x-api-key": target.adminKey,
      "mcp-protocol-version": PROTOCOL,
      ...(session && { "mcp-session-id": session }),
      ...options.headers,
    },
    body: options.raw ?? JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
}

/** The JSON-RPC messages of an answer, whether sent as JSON or as an SSE stream. */
function messagesOf(response: Response, text: string): Record<string, unknown>[] {
  if (text.trim() === "") return [];
  if ((response.headers.get("content-type") ?? "").includes("text/event-stream")) {
    return text
      .split("\n")
      .filter((line) => line.startsWith("data:"))
      .map((line) => JSON.parse(line.slice(5)) as Record<string, unknown>);
  }
  const parsed = JSON.parse(text) as unknown;
  return (Array.isArray(parsed) ? parsed : [parsed]) as Record<string, unknown>[];
}

/** What a tool or a message could change, read back over REST. */
async function snapshot(target: Target): Promise<unknown> {
  const { read } = target;
  return {
    config: await read("POST", "/config/export"),
    servers: await target.serverIds(),
    groups: await read("GET", "/groups/"),
    sources: await read("GET", "/discovery/sources"),
    approvals: await read("GET", "/approvals?state=pending"),
  };
}

/** Fails on a 5xx, an internal JSON-RPC error or internal text; answers the messages. */
async function checkAnswer(response: Response, where: string): Promise<Record<string, unknown>[]> {
  const text = await response.text();
  expectNoStackText(text, where);
  expect(response.status, `${where}: answered ${response.status} ${text.slice(0, 300)}`).toBeLessThan(500);
  const messages = messagesOf(response, text);
  for (const message of messages) {
    const error = message.error as { code?: number } | undefined;
    expect(error?.code, `${where}: internal error ${JSON.stringify(message).slice(0, 300)}`).not.toBe(-32603);
  }
  return messages;
}

beforeAll(async () => {
  await open(egress, `${common}${FLEET_WITH_GROUP}`);
  await open(
    frontDoor,
    `${common}
tool_access: {mode: front_door}
mcp_servers:
  math:
    command: [node, ${JSON.stringify(ARITHMETIC)}]
  rich:
    command: [node, ${JSON.stringify(RICH)}]
`,
  );
}, 60_000);

afterAll(async () => {
  await egress.gw?.close();
  await frontDoor.gw?.close();
});

const serverId = fc.oneof(fc.constantFrom("math", "text", "g1", "nope", "broken"), hostileString);
const call = fc.record(
  {
    mcp_server: serverId,
    tool: fc.oneof(fc.constantFrom("add", "echo", "nope"), hostileString),
    arguments: fc.oneof(
      fc.record(
        { a: fc.oneof(fc.integer(), anyJson), b: fc.oneof(fc.integer(), anyJson) },
        { requiredKeys: [] },
      ),
      anyJson,
    ),
    timeout: fc.oneof(fc.integer({ min: -5, max: 400 }), anyJson),
  },
  { requiredKeys: [] },
);

/** Near-valid arguments of each management tool; any other shape comes from `anyJson`. */
const TOOL_ARGS: Record<string, fc.Arbitrary<unknown>> = {
  gateway_list: fc.record({ state_filter: fc.oneof(fc.constantFrom("cold", "ready", "healthy"), anyJson) }),
  gateway_status: fc.constant({}),
  gateway_tools: fc.record({ mcp_server: serverId }),
  gateway_details: fc.record({ mcp_server: serverId }),
  gateway_health: fc.constant({}),
  gateway_start: fc.record({ mcp_server: serverId }),
  gateway_stop: fc.record({ mcp_server: serverId }),
  gateway_warm: fc.record({ mcp_servers: fc.oneof(fc.constantFrom("math", "math,text", "nope,,"), anyJson) }),
  gateway_reload_config: fc.record({ graceful: fc.oneof(fc.boolean(), anyJson) }, { requiredKeys: [] }),
  gateway_load: fc.record(
    {
      name: hostileString,
      force_unverified: fc.boolean(),
      allow_tools: fc.array(hostileString, { maxLength: 2 }),
      approval_tools: fc.array(hostileString, { maxLength: 2 }),
    },
    { requiredKeys: [] },
  ),
  gateway_unload: fc.record({ mcp_server: serverId }),
  gateway_metrics: fc.record({ format: fc.oneof(fc.constantFrom("json", "prometheus"), anyJson) }),
  gateway_discover: fc.constant({}),
  gateway_discovered: fc.constant({}),
  gateway_sources: fc.constant({}),
  gateway_quarantine: fc.constant({}),
  gateway_approve: fc.record(
    { name: hostileString, approve: fc.oneof(fc.boolean(), anyJson) },
    { requiredKeys: [] },
  ),
  gateway_group_list: fc.record(
    { state_filter: fc.oneof(fc.constantFrom("healthy"), anyJson) },
    { requiredKeys: [] },
  ),
  gateway_group_rebalance: fc.record({ group: serverId }),
  gateway_call: fc.record(
    {
      calls: fc.oneof(fc.array(call, { minLength: 0, maxLength: 3 }), anyJson),
      max_concurrency: fc.oneof(fc.integer({ min: -1, max: 60 }), anyJson),
      timeout: fc.oneof(fc.integer({ min: -1, max: 400 }), anyJson),
      fail_fast: fc.oneof(fc.boolean(), anyJson),
      max_attempts: fc.oneof(fc.integer({ min: -1, max: 7 }), anyJson),
    },
    { requiredKeys: [] },
  ),
  gateway_fetch_continuation: fc.record(
    {
      continuation_id: fc.oneof(fc.constant("cont_x_0_00000000"), hostileString),
      offset: fc.oneof(fc.integer({ min: -1, max: 3_000_000 }), anyJson),
      limit: fc.oneof(fc.integer({ min: -1, max: 3_000_000 }), anyJson),
    },
    { requiredKeys: [] },
  ),
  gateway_delete_continuation: fc.record({ continuation_id: hostileString }, { requiredKeys: [] }),
};

/** Arguments as sent: near-valid, extended with unknown keys, any JSON, or nested past any limit. */
function argumentsText(valid: fc.Arbitrary<unknown>): fc.Arbitrary<string> {
  const extra = fc.dictionary(fc.string({ minLength: 1, maxLength: 10 }), anyJson, {
    minKeys: 1,
    maxKeys: 2,
  });
  return fc.oneof(
    { weight: 4, arbitrary: valid.map((value) => JSON.stringify(value)) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(valid, extra)
        .map(([value, more]) => JSON.stringify({ ...more, ...(value as object) })),
    },
    { weight: 2, arbitrary: anyJson.map((value) => JSON.stringify(value) ?? "null") },
    {
      weight: 1,
      arbitrary: deepJsonText.map(
        (deep) => `{"calls":[{"mcp_server":"math","tool":"add","arguments":{"a":${deep}}}]}`,
      ),
    },
  );
}

describe("gateway_* tools with arguments of any shape", () => {
  it.each(Object.entries(TOOL_ARGS))(
    "%s: no internal error, no internal text, a refusal changes nothing",
    async (tool, args) => {
      const target = egress as Target;
      await fc.assert(
        fc.asyncProperty(
          argumentsText(args),
          fc.integer({ min: 1, max: 1_000_000 }),
          async (argsText, id) => {
            const before = await snapshot(target);
            const raw = `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":${JSON.stringify(tool)},"arguments":${argsText}}}`;
            const where = `${tool} ${argsText.slice(0, 200)}`;
            const messages = await checkAnswer(await post(target, null, { raw }), where);
            const answer = messages.find((message) => message.id === id);
            const result = answer?.result as { isError?: boolean; content?: { text?: string }[] } | undefined;
            const text = result?.content?.[0]?.text ?? "";
            expect(text, `${where}: internal error in the payload`).not.toContain(
              '"error_type":"InternalServerError"',
            );
            const refused =
              answer?.error !== undefined || result?.isError === true || text.startsWith('{"error"');
            if (refused)
              expect(await snapshot(target), `${where}: refused yet changed state`).toEqual(before);
          },
        ),
        { numRuns: FUZZ_RUNS, endOnFailure: true },
      );
    },
  );
});

const METHODS = [
  "initialize",
  "ping",
  "tools/list",
  "tools/call",
  "resources/list",
  "resources/read",
  "resources/templates/list",
  "resources/subscribe",
  "prompts/list",
  "prompts/get",
  "completion/complete",
  "logging/setLevel",
  "tasks/get",
  "tasks/list",
  "notifications/initialized",
  "notifications/cancelled",
  "server/discover",
];

const jsonRpcMessage = fc.record(
  {
    jsonrpc: fc.oneof({ weight: 5, arbitrary: fc.constant("2.0") }, { weight: 1, arbitrary: anyJson }),
    id: fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), anyJson),
    method: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...METHODS) },
      { weight: 1, arbitrary: hostileString },
    ),
    params: fc.oneof(
      fc.record(
        {
          name: fc.oneof(fc.constantFrom("add", "gateway_list", "rich_echo"), hostileString),
          uri: fc.oneof(fc.constantFrom("rich://doc", "file:///etc/passwd"), hostileString),
          arguments: anyJson,
          cursor: anyJson,
          level: fc.oneof(fc.constantFrom("debug", "info"), anyJson),
          protocolVersion: fc.oneof(fc.constantFrom(PROTOCOL, "2026-07-28", "1999-01-01"), anyJson),
          capabilities: anyJson,
          clientInfo: anyJson,
          _meta: anyJson,
        },
        { requiredKeys: [] },
      ),
      anyJson,
    ),
  },
  { requiredKeys: [] },
);

const wireBody = fc.oneof(
  { weight: 6, arbitrary: jsonRpcMessage.map((message) => JSON.stringify(message)) },
  { weight: 1, arbitrary: fc.array(jsonRpcMessage, { maxLength: 3 }).map((batch) => JSON.stringify(batch)) },
  { weight: 1, arbitrary: anyJson.map((value) => JSON.stringify(value) ?? "null") },
  { weight: 1, arbitrary: fc.string({ maxLength: 80 }) },
  {
    weight: 1,
    arbitrary: deepJsonText.map((deep) => `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":${deep}}`),
  },
);

describe("raw JSON-RPC on /mcp (front door)", () => {
  it("answers every message without a 5xx, an internal error or internal text, and a refusal changes nothing", async () => {
    const target = frontDoor as Target;
    await fc.assert(
      fc.asyncProperty(
        wireBody,
        fc.oneof(
          fc.constant(undefined),
          fc.constant(null),
          hostileString.filter((s) => /^[\x21-\x7e]*$/.test(s)),
        ),
        fc.record(
          {
            "mcp-protocol-version": fc.oneof(fc.constantFrom(PROTOCOL, "2026-07-28", "x"), fc.constant("")),
            accept: fc.constantFrom(
              "application/json",
              "text/event-stream",
              "*/*",
              "application/json, text/event-stream",
            ),
            "content-type": fc.constantFrom(
              "application/json",
              "text/plain",
              "application/json; charset=utf-8",
            ),
          },
          { requiredKeys: [] },
        ),
        async (body, session, headers) => {
          const before = await snapshot(target);
          const where = `session ${String(session)} ${JSON.stringify(headers)} ${body.slice(0, 200)}`;
          const response = await post(target, null, {
            raw: body,
            headers: headers as Record<string, string>,
            ...(session !== undefined && { session }),
          });
          await checkAnswer(response, where);
          if (response.status >= 400) {
            expect(await snapshot(target), `${where}: refused yet changed state`).toEqual(before);
          }
        },
      ),
      { numRuns: FUZZ_RUNS * 8, endOnFailure: true },
    );
  });
});
