import { PassThrough } from "node:stream";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { StdioTransport } from "../../../src/edges/mcp/stdio-transport.js";

/** A transport on in-memory streams: what it read, what it wrote, and whether it drained. */
async function open(maxLineBytes?: number) {
  const input = new PassThrough();
  const output = new PassThrough();
  const transport = new StdioTransport(
    { maxJsonDepth: 64, ...(maxLineBytes && { maxLineBytes }) },
    input,
    output,
  );
  const read: JSONRPCMessage[] = [];
  transport.onmessage = (message) => read.push(message);
  let written = "";
  output.on("data", (chunk: Buffer) => {
    written += chunk.toString("utf8");
  });
  await transport.start();
  const lines = () =>
    written
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  let drained = false;
  const watchDrain = () => {
    drained = false;
    void transport.drained().then(() => {
      drained = true;
    });
  };
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  return { input, transport, read, lines, watchDrain, isDrained: () => drained, turn };
}

describe("StdioTransport", () => {
  it("reads messages split across chunks, a multi-byte character included", async () => {
    const t = await open();
    const line = Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"s":"é😀"}}\n');
    for (let i = 0; i < line.length; i += 3) t.input.write(line.subarray(i, i + 3));
    await t.turn();
    expect(t.read).toEqual([{ jsonrpc: "2.0", id: 1, method: "ping", params: { s: "é😀" } }]);
  });

  it("skips blank lines and reads a last line that has no newline when stdin ends", async () => {
    const t = await open();
    t.input.write('\n\r\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n  \n');
    t.input.end('{"jsonrpc":"2.0","id":3,"method":"ping"}');
    await t.transport.ended;
    expect(t.read.map((m) => ("id" in m ? m.id : null))).toEqual([2, 3]);
    expect(t.lines()).toEqual([]);
  });

  it("keeps a request open until it is answered, whatever errors reuse its id", async () => {
    const t = await open();
    t.input.write('{"jsonrpc":"2.0","id":7,"method":"ping"}\n{"jsonrpc":"2.0","id":7,"method":"ping"}\n');
    t.input.write('{"jsonrpc":"1.0","id":7,"method":"ping"}\n');
    await t.turn();
    expect(t.lines()).toEqual([
      { jsonrpc: "2.0", id: 7, error: { code: -32600, message: "Invalid Request" } },
    ]);
    t.watchDrain();
    await t.transport.send({ jsonrpc: "2.0", id: 7, result: {} });
    await t.turn();
    expect(t.isDrained()).toBe(false);
    await t.transport.send({ jsonrpc: "2.0", id: 7, result: {} });
    await t.turn();
    expect(t.isDrained()).toBe(true);
  });

  it("counts a cancelled request as answered", async () => {
    const t = await open();
    t.input.write('{"jsonrpc":"2.0","id":"a","method":"ping"}\n');
    await t.turn();
    t.watchDrain();
    t.input.write('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a"}}\n');
    await t.turn();
    expect(t.isDrained()).toBe(true);
  });

  it("answers an oversized line with -32600 and reads the next one", async () => {
    const t = await open(64);
    t.input.write(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${"x".repeat(100)}"}}\n`);
    t.input.write('{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
    await t.turn();
    expect(t.lines()).toEqual([
      {
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600, message: "Invalid Request: a message must not exceed 64 bytes" },
      },
    ]);
    expect(t.read).toEqual([{ jsonrpc: "2.0", id: 2, method: "ping" }]);
  });

  it("answers a message nested deeper than the limit with -32600 and its id, and reads the next one", async () => {
    const t = await open();
    const nested = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;
    // The message itself is one level, `params` a second, `arguments` a third: 61 arrays make 64.
    const call = (id: number, levels: number) =>
      `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"t","arguments":{"x":${nested(levels)}}}}\n`;
    t.input.write(call(1, 61));
    t.input.write(call(2, 5000));
    t.input.write(`[${call(3, 70).trim()}]\n`);
    await t.turn();
    const refusal = "Invalid Request: message has nesting deeper than 64 levels (http.max_json_depth)";
    expect(t.lines()).toEqual([
      { jsonrpc: "2.0", id: 2, error: { code: -32600, message: refusal } },
      { jsonrpc: "2.0", id: null, error: { code: -32600, message: refusal } },
    ]);
    expect(t.read.map((message) => ("id" in message ? message.id : null))).toEqual([1]);
  });

  it("answers a request whose answer cannot be serialized with an internal error instead of nothing", async () => {
    const t = await open();
    t.input.write('{"jsonrpc":"2.0","id":4,"method":"ping"}\n');
    await t.turn();
    let deep: unknown = [];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    t.watchDrain();
    await t.transport.send({ jsonrpc: "2.0", id: 4, result: { deep } } as JSONRPCMessage);
    await t.turn();
    expect(t.lines()).toEqual([
      {
        jsonrpc: "2.0",
        id: 4,
        error: { code: -32603, message: "Internal error: the answer nests too deeply to be sent" },
      },
    ]);
    expect(t.isDrained()).toBe(true);
  });
});
