import { deserializeMessage } from "@modelcontextprotocol/client";
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { NdjsonReader } from "../../src/adapters/upstream/session/ndjson-reader.js";
import { StdioMessageReader } from "../../src/adapters/upstream/session/stdio-framing.js";

function reader(maxLineBytes = 1024) {
  const lines: string[] = [];
  let overflows = 0;
  const lineReader = new NdjsonReader({
    maxLineBytes,
    onLine: (line) => lines.push(line),
    onOverflow: () => {
      overflows += 1;
    },
  });
  return { lineReader, lines, overflows: () => overflows };
}

/** `bytes` cut into pieces of `size`. */
function cut(bytes: Buffer, size: number): Buffer[] {
  const pieces: Buffer[] = [];
  for (let start = 0; start < bytes.length; start += size) pieces.push(bytes.subarray(start, start + size));
  return pieces;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("NdjsonReader", () => {
  it("splits lines however the bytes are cut, CRLF and characters cut in two included", () => {
    const wire = Buffer.from('{"a":"é"}\r\n\n{"b":"日本語"}\n{"c":"😀"}\npartial');
    for (let size = 1; size <= wire.length; size++) {
      const { lineReader, lines } = reader();
      for (const piece of cut(wire, size)) lineReader.push(piece);
      expect(lines).toEqual(['{"a":"é"}', "", '{"b":"日本語"}', '{"c":"😀"}']);
    }
  });

  it("keeps a partial line until its newline arrives", () => {
    const { lineReader, lines } = reader();
    lineReader.push(Buffer.from('{"a":'));
    lineReader.push(Buffer.from("1"));
    expect(lines).toEqual([]);
    lineReader.push(Buffer.from("}\n"));
    expect(lines).toEqual(['{"a":1}']);
  });

  it("accepts a line of exactly the limit", () => {
    const { lineReader, lines, overflows } = reader(8);
    lineReader.push(Buffer.from("12345678\n"));
    expect(lines).toEqual(["12345678"]);
    expect(overflows()).toBe(0);
  });

  it("reports a partial line over the limit at once, once, and reads nothing after it", () => {
    const { lineReader, lines, overflows } = reader(8);
    lineReader.push(Buffer.from("ok\n12345"));
    lineReader.push(Buffer.from("6789"));
    expect(overflows()).toBe(1);
    lineReader.push(Buffer.from("\nlater\n"));
    expect(lines).toEqual(["ok"]);
    expect(overflows()).toBe(1);
  });

  it("reports a complete line over the limit that arrived in one chunk", () => {
    const { lineReader, lines, overflows } = reader(8);
    lineReader.push(Buffer.from("first\n123456789\nthird\n"));
    expect(lines).toEqual(["first"]);
    expect(overflows()).toBe(1);
  });

  it("stops the push in progress when a line handler clears it", () => {
    const lines: string[] = [];
    const lineReader: NdjsonReader = new NdjsonReader({
      maxLineBytes: 100,
      onLine: (line) => {
        lines.push(line);
        lineReader.clear();
      },
      onOverflow: () => {},
    });
    lineReader.push(Buffer.from("one\ntwo\nthr"));
    lineReader.push(Buffer.from("ee\nfour\n"));
    expect(lines).toEqual(["one", "ee"]);
  });

  it("joins the chunks of a large line once and scans each chunk once", () => {
    // 8 MiB in the 64 KiB pieces a pipe delivers: the SDK's ReadBuffer copies the whole buffer per piece.
    const line = Buffer.from(`{"jsonrpc":"2.0","id":1,"result":{"text":"${"x".repeat(8 * 1024 * 1024)}"}}\n`);
    const pieces = cut(line, 64 * 1024).map((piece) => Buffer.from(piece));
    const scans = pieces.map((piece) => vi.spyOn(piece, "indexOf"));
    const concat = vi.spyOn(Buffer, "concat");
    const { lineReader, lines } = reader(16 * 1024 * 1024);
    for (const piece of pieces) lineReader.push(piece);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe(line.toString("utf8", 0, line.length - 1));
    expect(concat).toHaveBeenCalledTimes(1);
    // A chunk is searched from where the previous search ended: once, plus once after each newline.
    expect(scans.slice(0, -1).every((scan) => scan.mock.calls.length === 1)).toBe(true);
    expect(scans.at(-1)?.mock.calls.length).toBe(2);
  });
});

describe("StdioMessageReader", () => {
  function messages(maxMessageBytes?: number) {
    const received: unknown[] = [];
    const logged: string[] = [];
    const oversized: string[] = [];
    const messageReader = new StdioMessageReader({
      maxMessageBytes,
      logs: { append: (stream, line) => logged.push(`${stream}: ${line}`) },
      onMessage: (message) => received.push(message),
      onOversized: (cause) => oversized.push(cause),
    });
    return { messageReader, received, logged, oversized };
  }

  it("delivers each JSON-RPC line and logs the lines that are not, then keeps reading", () => {
    const { messageReader, received, logged } = messages();
    messageReader.push(Buffer.from('{"jsonrpc":"2.0","id":1,"result":{}}\nhello\n{"jsonrpc":"1.0"}\n'));
    messageReader.push(Buffer.from('{"jsonrpc":"2.0","method":"notifications/x"}\n'));
    expect(received).toEqual([
      { jsonrpc: "2.0", id: 1, result: {} },
      { jsonrpc: "2.0", method: "notifications/x" },
    ]);
    expect(logged).toHaveLength(2);
    expect(
      logged.every((line) => line.startsWith("stdout: ignored a stdout line that is not JSON-RPC: ")),
    ).toBe(true);
  });

  it("says how large a message may be when one is larger", () => {
    const { messageReader, received, oversized } = messages(16);
    messageReader.push(Buffer.from('{"jsonrpc":"2.0","id":1,"result":{}}\n'));
    expect(received).toEqual([]);
    expect(oversized).toEqual(["the server sent a message larger than 16 bytes"]);
  });

  it("reads a result with its own __proto__ key as the SDK does (the key dropped)", () => {
    const line = '{"jsonrpc":"2.0","id":1,"result":{"content":[],"__proto__":{"x":1}}}';
    const { messageReader, received } = messages();
    messageReader.push(Buffer.from(`${line}\n`));
    expect(received).toEqual([deserializeMessage(line)]);
    expect(Object.hasOwn((received[0] as { result: object }).result, "__proto__")).toBe(false);
  });

  it("reads every line as the SDK's deserializeMessage does", () => {
    const id = fc.oneof(fc.string(), fc.integer(), fc.double(), fc.constant(null));
    const result = fc.oneof(
      fc.dictionary(
        fc.constantFrom("content", "isError", "_meta", "structuredContent", "__proto__"),
        fc.jsonValue(),
      ),
      fc.jsonValue(),
    );
    const line = fc.record(
      { jsonrpc: fc.constantFrom("2.0", "1.0"), id, result, method: fc.string(), other: fc.string() },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(line, (value) => {
        const text = JSON.stringify(value);
        const { messageReader, received, logged } = messages();
        messageReader.push(Buffer.from(`${text}\n`));
        let expected: unknown;
        try {
          expected = deserializeMessage(text);
        } catch {
          expect(received).toEqual([]);
          expect(logged).toHaveLength(1);
          return;
        }
        expect(received).toEqual([expected]);
      }),
      { numRuns: 2000 },
    );
  });
});
