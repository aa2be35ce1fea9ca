import { classifyInboundRequest, type InboundHttpRequest } from "@modelcontextprotocol/server";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RevisionClassifier } from "../../../src/edges/mcp/revision-classifier.js";

const PV = "io.modelcontextprotocol/protocolVersion";
const INFO = "io.modelcontextprotocol/clientInfo";
const CAPS = "io.modelcontextprotocol/clientCapabilities";
const LEVEL = "io.modelcontextprotocol/logLevel";

/**
 * One of `usual` (each as likely as the others), or now and then one of `unusual`: most requests
 * are well-formed (and classified modern), and many are not.
 */
const mostly = (usual: unknown[], unusual: unknown[]) =>
  fc.oneof(
    { arbitrary: fc.constantFrom(...usual), weight: 9 },
    { arbitrary: fc.constantFrom(...unusual), weight: 1 },
  );

const meta = fc.record({
  [PV]: mostly(["2026-07-28"], [undefined, "2025-11-25", 5]),
  [INFO]: mostly(
    [undefined, { name: "c", version: "1" }, { name: "c", version: "1", title: "C" }],
    [null, { name: 1 }],
  ),
  [CAPS]: mostly(
    [{}, { sampling: {} }, { elicitation: { form: {} } }],
    [undefined, null, { roots: { listChanged: "yes" } }],
  ),
  [LEVEL]: mostly([undefined, "info"], ["loud", null]),
  progressToken: mostly([undefined, "t", 3], [1.5, {}]),
  "io.modelcontextprotocol/related-task": mostly([undefined], [{ taskId: "x" }, { taskId: 1 }]),
  traceparent: mostly([undefined], ["00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"]),
});

const params = fc.record({
  name: mostly(["add"], [undefined]),
  _meta: fc.oneof({ arbitrary: meta, weight: 9 }, fc.constantFrom<unknown>(null, [], undefined)),
});

const body = fc.record({
  jsonrpc: mostly(["2.0"], [undefined, "1.0"]),
  id: mostly([1, "a"], [undefined, 1.5, null, 2 ** 60]),
  method: mostly(["tools/call"], ["tools/list", "initialize", undefined, 5]),
  params: fc.oneof({ arbitrary: params, weight: 9 }, fc.constant(undefined)),
  result: mostly([undefined], [{}]),
});

const request = fc.record({
  httpMethod: mostly(["POST"], ["GET"]),
  protocolVersionHeader: mostly([undefined, "2026-07-28"], ["2025-11-25", " 2026-07-28"]),
  mcpMethodHeader: mostly([undefined, "tools/call"], ["tools/list", " tools/call"]),
  mcpNameHeader: mostly([undefined, "add"], ["other"]),
  body: fc.oneof({ arbitrary: body, weight: 9 }, fc.constantFrom<unknown>([], "text")),
});

/** `value` without the keys whose value is `undefined`, at every level (as JSON would carry it). */
function asJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value) ?? "null") as T;
}

describe("RevisionClassifier", () => {
  it("answers every request as the SDK's classifier does, the envelopes it remembers included", () => {
    const classifier = new RevisionClassifier();
    let modern = 0;
    fc.assert(
      fc.property(request, (generated) => {
        const input = asJson(generated) as InboundHttpRequest;
        const expected = classifyInboundRequest(input);
        if (expected.kind === "modern") modern++;
        // Twice: the first may teach it the envelope, the second may answer from what it learnt.
        expect(classifier.classify(input)).toEqual(expected);
        expect(classifier.classify(input)).toEqual(expected);
      }),
      { numRuns: 3000 },
    );
    // Enough modern requests that the remembered envelopes answer many of them.
    expect(modern).toBeGreaterThan(150);
  });

  it("answers a known envelope at once, and still refuses what differs from it elsewhere", () => {
    const classifier = new RevisionClassifier();
    const envelope = { [PV]: "2026-07-28", [CAPS]: { sampling: {} }, [INFO]: { name: "c", version: "1" } };
    const call = (overrides: Record<string, unknown>, headers: Partial<InboundHttpRequest> = {}) =>
      ({
        httpMethod: "POST",
        protocolVersionHeader: "2026-07-28",
        mcpMethodHeader: "tools/call",
        body: {
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "add", _meta: envelope },
          ...overrides,
        },
        ...headers,
      }) as InboundHttpRequest;
    const variants = [
      call({}),
      call({ id: 2 }, { mcpMethodHeader: "tools/list" }),
      call({}, { protocolVersionHeader: "2025-11-25" }),
      call({ method: "initialize" }),
      call({ id: 1.5 }),
      call({ params: { name: "add", _meta: { ...envelope, progressToken: {} } } }),
      call({ params: { name: "add", _meta: { ...envelope, "io.modelcontextprotocol/related-task": {} } } }),
      call({ params: { name: "add", _meta: { ...envelope, [INFO]: null } } }),
      call({ result: {} }),
      // Infinity (JSON's 1e999) is written as null: the two must not share a remembered envelope.
      call({ params: { name: "add", _meta: { ...envelope, [CAPS]: { extensions: { x: { k: null } } } } } }),
      call({
        params: { name: "add", _meta: { ...envelope, [CAPS]: { extensions: { x: { k: Infinity } } } } },
      }),
    ];
    for (const input of variants) expect(classifier.classify(input)).toEqual(classifyInboundRequest(input));
    expect(classifier.classify(variants[0] as InboundHttpRequest)).toMatchObject({
      kind: "modern",
      message: (variants[0] as InboundHttpRequest).body,
      classification: { era: "modern", revision: "2026-07-28" },
    });
  });
});
