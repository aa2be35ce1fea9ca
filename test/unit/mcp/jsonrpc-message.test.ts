import { JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { answeredRequest, isRequestMessage, readMessage } from "../../../src/edges/mcp/jsonrpc-message.js";

/** What the SDK's schema makes of a value: the message it reads, or null. */
function bySchema(item: unknown): unknown {
  const parsed = JSONRPCMessageSchema.safeParse(item);
  return parsed.success ? parsed.data : null;
}

const CASES: unknown[] = [
  { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: { text: "a" } } },
  { jsonrpc: "2.0", id: "a-1", method: "tools/list" },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 3 } },
  { jsonrpc: "2.0", id: 2, method: "tools/call", params: { _meta: { progressToken: "p" }, name: "x" } },
  {
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: { _meta: { "io.modelcontextprotocol/related-task": { taskId: "t", extra: 1 } } },
  },
  { jsonrpc: "2.0", id: 2, method: "tools/call", params: { _meta: { progressToken: 1.5 } } },
  { jsonrpc: "2.0", id: 4, result: { content: [] } },
  { jsonrpc: "2.0", id: 4, error: { code: -32601, message: "nope" } },
  { jsonrpc: "2.0", error: { code: -32700, message: "parse" } },
  { jsonrpc: "2.0", id: 1.5, method: "tools/list" },
  { jsonrpc: "2.0", id: null, method: "tools/list" },
  { jsonrpc: "2.0", id: 1, method: "tools/list", extra: true },
  { jsonrpc: "1.0", id: 1, method: "tools/list" },
  { jsonrpc: "2.0", id: 1, method: 7 },
  { jsonrpc: "2.0", id: 1, method: "tools/list", params: [1, 2] },
  { jsonrpc: "2.0", id: 1, method: "tools/list", params: null },
  { jsonrpc: "2.0", id: 1, method: "tools/list", params: "x" },
  { jsonrpc: "2.0", id: 1, method: "tools/list", params: undefined },
  JSON.parse('{"jsonrpc":"2.0","id":1,"method":"m","__proto__":{"x":1}}'),
  JSON.parse('{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1,"__proto__":{"x":1}}}'),
  [],
  null,
  "text",
  42,
];

describe("readMessage", () => {
  it.each(CASES.map((item) => [JSON.stringify(item) ?? String(item), item]))(
    "reads %s as the SDK's schema does",
    (_, item) => {
      expect(readMessage(item)).toEqual(bySchema(item));
    },
  );

  it("reads any request-like value as the SDK's schema does", () => {
    const id = fc.oneof(fc.string(), fc.integer(), fc.double(), fc.constant(null), fc.boolean());
    const params = fc.oneof(
      fc.constant(undefined),
      fc.dictionary(fc.constantFrom("name", "arguments", "_meta", "cursor", "__proto__"), fc.jsonValue()),
      fc.jsonValue(),
    );
    const message = fc.record(
      {
        jsonrpc: fc.constantFrom("2.0", "2", 2),
        id,
        method: fc.oneof(fc.string(), fc.integer()),
        params,
        other: fc.string(),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      // Through JSON, as a body arrives: `__proto__` becomes an own key, as JSON.parse makes it.
      fc.property(message, (value) => {
        const item: unknown = JSON.parse(JSON.stringify(value));
        expect(readMessage(item)).toEqual(bySchema(item));
      }),
      { numRuns: 2000 },
    );
  });
});

describe("isRequestMessage and answeredRequest", () => {
  it("tell requests from notifications, and name the request a response answers", () => {
    const request = readMessage({ jsonrpc: "2.0", id: 7, method: "ping" });
    const notification = readMessage({ jsonrpc: "2.0", method: "notifications/initialized" });
    const result = readMessage({ jsonrpc: "2.0", id: 7, result: {} });
    const error = readMessage({ jsonrpc: "2.0", id: "e", error: { code: 1, message: "m" } });
    const anonymous = readMessage({ jsonrpc: "2.0", error: { code: 1, message: "m" } });
    if (!request || !notification || !result || !error || !anonymous) throw new Error("unread message");
    expect([request, notification, result, error].map(isRequestMessage)).toEqual([true, false, false, false]);
    expect([request, notification, result, error, anonymous].map(answeredRequest)).toEqual([
      undefined,
      undefined,
      7,
      "e",
      undefined,
    ]);
  });
});
