import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fleetYaml, startTestGateway, type TestGateway } from "../support/gateway.js";
import { callJson, connectHttp } from "../support/mcp-client.js";
import { describeRedis, REDIS_URL } from "../support/redis.js";

/** The text the controllable server's `large` tool returns (same rule as the fixture). */
function largeText(chars: number, lineChars = 100, fill = "x"): string {
  const pad = fill.repeat(lineChars);
  const lines: string[] = [];
  for (let n = 1, length = 0; length < chars; n++, length += lineChars) {
    lines.push(`${`${String(n).padStart(8, "0")} ${pad}`.slice(0, lineChars - 1)}\n`);
  }
  return lines.join("").slice(0, chars);
}

interface CallResultJson {
  index: number;
  call_id: string;
  success: boolean;
  result: { content: { type: string; text: string }[] } | string | null;
  error: string | null;
  error_type: string | null;
  truncated: boolean;
  truncated_reason: string | null;
  original_size_bytes: number | null;
  continuation_id: string | null;
}

async function started(yaml: string) {
  const gw = await startTestGateway(yaml);
  const baseUrl = await gw.app.listen({ host: "127.0.0.1", port: 0 });
  const client = await connectHttp(baseUrl);
  // Warm the servers, so that no call of a batch waits for a cold start.
  await callJson(client, "gateway_warm", { mcp_servers: "math,text,ctl" });
  return { gw, client };
}

const textOf = (result: CallResultJson) => {
  const block = (result.result as { content: { text: string }[] }).content[0];
  return block?.text ?? "";
};

/** Fetches a continuation slice by slice until `complete`, checking every answer on the way. */
async function fetchAll(client: Client, continuation_id: string, limit: number) {
  let offset = 0;
  let data = "";
  let slices = 0;
  for (;;) {
    const { json } = await callJson(client, "gateway_fetch_continuation", { continuation_id, offset, limit });
    expect(json).toMatchObject({ found: true, offset, total_size_bytes: expect.any(Number) });
    expect(Buffer.byteLength(json.data)).toBeLessThanOrEqual(limit);
    expect(json.has_more).toBe(!json.complete);
    data += json.data;
    offset += Buffer.byteLength(json.data);
    slices++;
    if (json.complete) {
      expect(offset).toBe(json.total_size_bytes);
      return { data, slices, total: json.total_size_bytes as number };
    }
    expect(slices).toBeLessThan(1_000);
  }
}

describe("gateway_call batches with truncation off", () => {
  let gw: TestGateway;
  let client: Client;
  beforeAll(async () => {
    ({ gw, client } = await started(fleetYaml()));
  });
  afterAll(async () => {
    await client?.close();
    await gw?.close();
  });

  it("runs 100 calls: successes, tool errors, timeouts, and a 20 MB result refused by the 10 MB limit", async () => {
    type Kind = "add" | "echo" | "ctl-echo" | "divide" | "timeout" | "large" | "huge";
    const kinds: Kind[] = [
      ...Array<Kind>(20).fill("add"),
      ...Array<Kind>(20).fill("echo"),
      ...Array<Kind>(40).fill("ctl-echo"),
      ...Array<Kind>(10).fill("divide"),
      ...Array<Kind>(5).fill("timeout"),
      ...Array<Kind>(4).fill("large"),
      "huge",
    ];
    // A fixed shuffle (37 is coprime with 100), so every kind is spread over the batch.
    const order = Array.from({ length: 100 }, (_, i) => kinds[(i * 37) % 100]!);
    const call = (kind: Kind, i: number) => {
      switch (kind) {
        case "add":
          return { mcp_server: "math", tool: "add", arguments: { a: i, b: 1000 } };
        case "echo":
          return { mcp_server: "text", tool: "echo", arguments: { text: `text ${i}` } };
        case "ctl-echo":
          return { mcp_server: "ctl", tool: "echo", arguments: { message: `message ${i}` } };
        case "divide":
          return { mcp_server: "math", tool: "divide", arguments: { a: i, b: 0 } };
        case "timeout":
          return { mcp_server: "ctl", tool: "sleep", arguments: { ms: 10_000 }, timeout: 1 };
        case "large":
          return { mcp_server: "ctl", tool: "large", arguments: { chars: 200_000 } };
        case "huge":
          return { mcp_server: "ctl", tool: "large", arguments: { chars: 20_000_000 } };
      }
    };
    const { json, isError } = await callJson(client, "gateway_call", {
      calls: order.map(call),
      max_concurrency: 10,
    });
    expect(isError).toBe(false);
    expect(json).toMatchObject({ total: 100, succeeded: 84, failed: 16, cancelled: 0, success: false });
    expect(json.batch_id).toMatch(/^[0-9a-f-]{36}$/);
    const results = json.results as CallResultJson[];
    expect(results.map((r) => r.index)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(new Set(results.map((r) => r.call_id)).size).toBe(100);
    results.forEach((result, i) => {
      expect(result).toMatchObject({ truncated: false, truncated_reason: null, continuation_id: null });
      switch (order[i]) {
        case "add":
          expect(result.success).toBe(true);
          expect(textOf(result)).toBe(String(i + 1000));
          break;
        case "echo":
          expect(textOf(result)).toBe(`text ${i}`);
          break;
        case "ctl-echo":
          expect(textOf(result)).toBe(`message ${i}`);
          break;
        case "divide":
          expect(result).toMatchObject({ success: false, error_type: "ToolError" });
          expect(result.error).toContain("Cannot divide by zero");
          break;
        case "timeout":
          expect(result).toMatchObject({ success: false, error_type: "ToolTimeoutError", result: null });
          break;
        case "large":
          expect(result.success).toBe(true);
          expect(textOf(result)).toBe(largeText(200_000));
          expect(result.original_size_bytes).toBeGreaterThan(200_000);
          break;
        case "huge":
          expect(result).toMatchObject({ success: false, error_type: "ResponseTooLarge", result: null });
          expect(result.error).toMatch(/exceeds 10485760 bytes/);
          break;
      }
    });
  });

  it("returns a result far over the truncation budget whole while truncation is disabled", async () => {
    const { json } = await callJson(client, "gateway_call", {
      calls: [{ mcp_server: "ctl", tool: "large", arguments: { chars: 1_500_000 } }],
    });
    const [result] = json.results as CallResultJson[];
    expect(result).toMatchObject({ success: true, truncated: false, continuation_id: null });
    expect(textOf(result!)).toBe(largeText(1_500_000));
  });

  it("answers continuation lookups with not found while truncation is disabled", async () => {
    const id = "cont_00000000-0000-4000-8000-000000000000_0_0a1b2c3d";
    const fetched = await callJson(client, "gateway_fetch_continuation", { continuation_id: id });
    expect(fetched.json).toEqual({ found: false, error: expect.stringContaining("not found") });
    const deleted = await callJson(client, "gateway_delete_continuation", { continuation_id: id });
    expect(deleted.json).toEqual({
      deleted: false,
      continuation_id: id,
      error: expect.stringContaining("not found"),
    });
  });
});

const truncationYaml = (driver: "memory" | "redis", extra = "") =>
  fleetYaml(`truncation:
  enabled: true
  max_batch_size_bytes: 200000
  min_per_response_bytes: 10000
  cache_driver: ${driver}
${driver === "redis" ? `  redis_url: ${JSON.stringify(REDIS_URL)}\n` : ""}${extra}`);

for (const driver of ["memory", "redis"] as const) {
  await (driver === "redis" ? describeRedis : describeNow)(
    `gateway_call with truncation on (${driver})`,
    () => {
      let gw: TestGateway;
      let client: Client;
      beforeAll(async () => {
        ({ gw, client } = await started(truncationYaml(driver)));
      });
      afterAll(async () => {
        await client?.close();
        await gw?.close();
      });

      it("cuts a large result on a line boundary, serves it back in slices until complete, then deletes it", async () => {
        expect(gw.gateway.services.continuations?.store.driver).toBe(driver);
        const { json } = await callJson(client, "gateway_call", {
          calls: [
            { mcp_server: "ctl", tool: "large", arguments: { chars: 1_200_000 } },
            { mcp_server: "math", tool: "add", arguments: { a: 2, b: 3 } },
            { mcp_server: "text", tool: "echo", arguments: { text: "small" } },
          ],
        });
        expect(json).toMatchObject({ success: true, succeeded: 3 });
        const [large, add, echo] = json.results as CallResultJson[];
        expect(add).toMatchObject({ truncated: false, continuation_id: null });
        expect(textOf(add!)).toBe("5");
        expect(echo).toMatchObject({ truncated: false, continuation_id: null });
        expect(textOf(echo!)).toBe("small");

        expect(large).toMatchObject({
          success: true,
          truncated: true,
          truncated_reason: "batch_budget_exceeded",
        });
        const continuationId = large!.continuation_id!;
        expect(continuationId).toMatch(new RegExp(`^cont_${json.batch_id}_0_[0-9a-f]{8}$`));
        // The kept part is valid JSON of the result's shape, within the batch budget, ending on a line.
        expect(Buffer.byteLength(JSON.stringify(large!.result))).toBeLessThanOrEqual(200_000);
        const kept = textOf(large!);
        expect(kept.length).toBeGreaterThan(150_000);
        expect(largeText(1_200_000).startsWith(kept)).toBe(true);
        expect(kept.endsWith("\n")).toBe(true);

        const { data, slices, total } = await fetchAll(client, continuationId, 500_000);
        expect(total).toBe(large!.original_size_bytes);
        expect(slices).toBe(Math.ceil(total / 500_000));
        expect(JSON.parse(data)).toMatchObject({ content: [{ type: "text", text: largeText(1_200_000) }] });

        const deleted = await callJson(client, "gateway_delete_continuation", {
          continuation_id: continuationId,
        });
        expect(deleted.json).toEqual({ deleted: true, continuation_id: continuationId });
        const gone = await callJson(client, "gateway_fetch_continuation", {
          continuation_id: continuationId,
        });
        expect(gone.json).toEqual({ found: false, error: expect.stringContaining("not found") });
        const again = await callJson(client, "gateway_delete_continuation", {
          continuation_id: continuationId,
        });
        expect(again.json).toMatchObject({ deleted: false, continuation_id: continuationId });
      });

      it("reassembles a multibyte result exactly from slices of an odd size", async () => {
        const { json } = await callJson(client, "gateway_call", {
          calls: [
            { mcp_server: "ctl", tool: "large", arguments: { chars: 300_000, line_chars: 77, fill: "é€😀" } },
          ],
        });
        const [result] = json.results as CallResultJson[];
        expect(result).toMatchObject({ truncated: true });
        const { data, total } = await fetchAll(client, result!.continuation_id!, 77_777);
        expect(total).toBe(result!.original_size_bytes);
        expect(JSON.parse(data).content[0].text).toBe(largeText(300_000, 77, "é€😀"));
        // A slice asked to start inside a character starts at that character instead.
        const bytes = Buffer.from(data, "utf8");
        const inside = bytes.findIndex((byte) => (byte & 0xc0) === 0x80);
        const slice = await callJson(client, "gateway_fetch_continuation", {
          continuation_id: result!.continuation_id,
          offset: inside,
          limit: 10,
        });
        expect(inside - slice.json.offset).toBeGreaterThanOrEqual(1);
        expect(inside - slice.json.offset).toBeLessThanOrEqual(3);
        const sliceBytes = Buffer.from(slice.json.data, "utf8");
        expect(
          sliceBytes.equals(bytes.subarray(slice.json.offset, slice.json.offset + sliceBytes.length)),
        ).toBe(true);
      });

      it("keeps a batch within its budget untouched", async () => {
        const { json } = await callJson(client, "gateway_call", {
          calls: [{ mcp_server: "ctl", tool: "large", arguments: { chars: 150_000 } }],
        });
        const [result] = json.results as CallResultJson[];
        expect(result).toMatchObject({ truncated: false, truncated_reason: null, continuation_id: null });
        expect(textOf(result!)).toBe(largeText(150_000));
      });
    },
  );
}

describe("gateway_call with truncation on, without JSON structure", () => {
  let gw: TestGateway;
  let client: Client;
  beforeAll(async () => {
    ({ gw, client } = await started(truncationYaml("memory", "  preserve_json_structure: false\n")));
  });
  afterAll(async () => {
    await client?.close();
    await gw?.close();
  });

  it("returns the first characters of the result's JSON text; the continuation from there is the rest", async () => {
    const { json } = await callJson(client, "gateway_call", {
      calls: [{ mcp_server: "ctl", tool: "large", arguments: { chars: 400_000 } }],
    });
    const [result] = json.results as CallResultJson[];
    expect(result).toMatchObject({ truncated: true });
    const kept = result!.result as string;
    expect(typeof kept).toBe("string");
    expect(kept.startsWith('{"content":[{"type":"text","text":"00000001 ')).toBe(true);
    expect(kept.endsWith("\\n")).toBe(true);
    const rest = await callJson(client, "gateway_fetch_continuation", {
      continuation_id: result!.continuation_id,
      offset: Buffer.byteLength(kept),
      limit: 2_000_000,
    });
    expect(rest.json).toMatchObject({ found: true, complete: true, has_more: false });
    expect(JSON.parse(kept + rest.json.data).content[0].text).toBe(largeText(400_000));
  });
});

describe("starting with the redis continuation store", () => {
  it("is refused when Redis does not answer, naming truncation.redis_url", async () => {
    await expect(
      startTestGateway(
        fleetYaml("truncation:\n  enabled: true\n  cache_driver: redis\n  redis_url: redis://127.0.0.1:1\n"),
      ),
    ).rejects.toThrow(/^truncation\.redis_url: .*did not complete a SETEX round trip/);
  });

  it("does not reach for Redis while truncation is disabled", async () => {
    const gw = await startTestGateway(
      fleetYaml("truncation:\n  enabled: false\n  cache_driver: redis\n  redis_url: redis://127.0.0.1:1\n"),
    );
    expect(gw.gateway.services.continuations).toBeNull();
    await gw.close();
  });
});

async function describeNow(name: string, body: () => void): Promise<void> {
  describe(name, body);
}
