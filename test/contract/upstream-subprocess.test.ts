import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  killAllProcessGroups,
  registeredProcessGroups,
} from "../../src/adapters/upstream/subprocess/process-groups.js";
import type { SubprocessConnection } from "../../src/adapters/upstream/subprocess/subprocess-connection.js";
import { SubprocessUpstreamFactory } from "../../src/adapters/upstream/subprocess/subprocess-upstream-factory.js";
import { type LogSink, type UpstreamConnection, UpstreamStartFailure } from "../../src/app/ports/upstream.js";
import { readEnvSettings } from "../../src/config/env.js";
import type { ServerSpec } from "../../src/domain/server/server-spec.js";
import { isAlive } from "../support/processes.js";

const NODE = process.execPath;
const path = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));
const ARITHMETIC = path("../../examples/servers/arithmetic.mjs");
const TEXT = path("../../examples/servers/text.mjs");
const CONTROLLABLE = path("../fixtures/servers/controllable.mjs");
const FAILS_TO_START = path("../fixtures/servers/fails-to-start.mjs");

const CONNECT = { timeoutMs: 10_000 };
const CALL = { timeoutMs: 10_000 };
// Short waits so stop sequences that reach SIGTERM do not slow the suite down.
const STOP_TIMING = { stdinGraceMs: 300, termGraceMs: 500 };
// What the composition passes: the gateway's HOME, PATH, ... read by the configuration loader.
const BASE_ENV = readEnvSettings(process.env).settings.childBaseEnv;
const factory = new SubprocessUpstreamFactory({ stopTiming: STOP_TIMING, baseEnv: BASE_ENV });

function spec(command: string[], env: Record<string, string> = {}, cwd?: string): ServerSpec {
  return {
    id: "under-test",
    mode: "subprocess",
    command,
    env,
    ...(cwd !== undefined && { cwd }),
    idle_ttl_s: 300,
    health_check_interval_s: 60,
    max_consecutive_failures: 3,
    source: "config",
  };
}

/**
 * A stdio MCP server without dependencies, written to a scratch directory: `cwd` answers its
 * working directory, `future` a result of content the SDK's schemas do not know.
 */
const RAW_SERVER = `
import { createInterface } from "node:readline";
const send = (message) => process.stdout.write(JSON.stringify(message) + "\\n");
createInterface({ input: process.stdin }).on("line", (line) => {
  const request = JSON.parse(line);
  if (request.id === undefined) return;
  const answer = (result) => send({ jsonrpc: "2.0", id: request.id, result });
  if (request.method === "initialize")
    return answer({
      protocolVersion: request.params.protocolVersion,
      capabilities: { tools: {} },
      serverInfo: { name: "raw", version: "1.0.0" },
    });
  if (request.method === "tools/call" && request.params.name === "cwd")
    return answer({ content: [{ type: "text", text: process.cwd() }] });
  if (request.method === "tools/call" && request.params.name === "future")
    return answer({
      content: [{ type: "hologram", frames: [{ at: 0, data: "AAEC" }] }],
      structuredContent: { frames: 1 },
      _meta: { "example.com/trace": "t-1" },
      extra: "kept",
    });
  if (request.method === "tools/call" && request.params.name === "bare")
    return answer({ structuredContent: { n: 1 } });
  send({ jsonrpc: "2.0", id: request.id, error: { code: -32601, message: "unknown method" } });
});
`;

let scratch: string;

beforeAll(() => {
  scratch = realpathSync(mkdtempSync(join(tmpdir(), "airlock-subprocess-")));
  writeFileSync(join(scratch, "raw-server.mjs"), RAW_SERVER);
});

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

class MemorySink implements LogSink {
  readonly lines: string[] = [];
  append(stream: "stderr" | "stdout", line: string): void {
    if (stream === "stderr") this.lines.push(line);
  }
}

async function expectGone(pid: number): Promise<void> {
  await vi.waitFor(() => expect(isAlive(pid)).toBe(false), { timeout: 3_000, interval: 20 });
}

const open: UpstreamConnection[] = [];
async function connect(
  command: string[],
  sink: LogSink = new MemorySink(),
  env?: Record<string, string>,
  cwd?: string,
  using = factory,
) {
  const connection = (await using.connect(spec(command, env, cwd), sink, CONNECT)) as SubprocessConnection;
  open.push(connection);
  return connection;
}

async function spawnGrandchild(connection: UpstreamConnection, ignoreSigterm = false): Promise<number> {
  const result = await connection.callTool("spawn_grandchild", { ignore_sigterm: ignoreSigterm }, CALL);
  const pid = (result.structuredContent as { pid: number }).pid;
  expect(isAlive(pid)).toBe(true);
  return pid;
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((connection) => connection.close()));
});

describe("SubprocessUpstreamFactory", () => {
  it("lists the arithmetic example's tools with their schemas", async () => {
    const connection = await connect([NODE, ARITHMETIC]);
    const tools = await connection.listTools(CALL);
    expect(tools.map((tool) => tool.name).sort()).toEqual(["add", "divide", "multiply", "subtract", "sum"]);
    const add = tools.find((tool) => tool.name === "add");
    expect(add?.description).toMatch(/add/i);
    expect(add?.inputSchema).toMatchObject({ type: "object", required: ["a", "b"] });
    expect(add?.outputSchema).toMatchObject({ type: "object", properties: { result: { type: "number" } } });
    // The example lists nothing else (other listed fields would be kept apart, under `listing`).
    expect(Object.keys(add ?? {}).sort()).toEqual(["description", "inputSchema", "name", "outputSchema"]);
  });

  it("returns tool results as the server sent them, errors included", async () => {
    const connection = await connect([NODE, ARITHMETIC]);
    const sum = await connection.callTool("sum", { numbers: [1, 2, 3.5] }, CALL);
    expect(sum).toMatchObject({
      content: [{ type: "text", text: "6.5" }],
      structuredContent: { result: 6.5 },
    });
    const divide = await connection.callTool("divide", { a: 1, b: 0 }, CALL);
    expect(divide.isError).toBe(true);
    expect(divide.content[0]).toMatchObject({ type: "text", text: expect.stringMatching(/divide by zero/) });
  });

  it("runs the text example", async () => {
    const connection = await connect([NODE, TEXT]);
    expect((await connection.listTools(CALL)).map((tool) => tool.name).sort()).toEqual([
      "echo",
      "lowercase",
      "reverse",
      "uppercase",
      "word_count",
    ]);
    const reversed = await connection.callTool("reverse", { text: "abc" }, CALL);
    expect(reversed.structuredContent).toEqual({ text: "cba" });
    const counted = await connection.callTool("word_count", { text: " two  words " }, CALL);
    expect(counted.structuredContent).toEqual({ words: 2 });
  });

  it("passes spec.env over the default environment and nothing else of the gateway's", async () => {
    process.env.AIRLOCK_TEST_NOT_INHERITED = "secret";
    try {
      const connection = await connect([NODE, CONTROLLABLE], new MemorySink(), { GREETING: "hello" });
      const read = async (name: string) =>
        (await connection.callTool("env", { name }, CALL)).structuredContent;
      expect(await read("GREETING")).toEqual({ name: "GREETING", value: "hello" });
      expect(await read("PATH")).toEqual({ name: "PATH", value: process.env.PATH });
      expect(await read("AIRLOCK_TEST_NOT_INHERITED")).toEqual({
        name: "AIRLOCK_TEST_NOT_INHERITED",
        value: null,
      });
    } finally {
      delete process.env.AIRLOCK_TEST_NOT_INHERITED;
    }
  });

  it("forwards each stderr line of the server to the log sink", async () => {
    const sink = new MemorySink();
    const connection = await connect([NODE, CONTROLLABLE], sink);
    await connection.callTool("stderr", { line: "first line" }, CALL);
    await connection.callTool("stderr", { line: "second line" }, CALL);
    await vi.waitFor(() =>
      expect(sink.lines).toEqual(["controllable server ready", "first line", "second line"]),
    );
  });

  it("fires onClosed once with the exit code when the server crashes, and fails the call in flight", async () => {
    const connection = await connect([NODE, CONTROLLABLE]);
    const reasons: string[] = [];
    connection.onClosed((reason) => reasons.push(reason));
    await expect(connection.callTool("crash", {}, CALL)).rejects.toThrow(
      "upstream connection closed: process exited with code 3",
    );
    await vi.waitFor(() => expect(reasons).toEqual(["process exited with code 3"]));
    const late = await new Promise<string>((resolve) => connection.onClosed(resolve));
    expect(late).toBe("process exited with code 3");
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(reasons).toHaveLength(1);
    await expect(connection.callTool("echo", { message: "x" }, CALL)).rejects.toThrow();
  });

  it("close() ends the server and its grandchild and does not fire onClosed", async () => {
    const connection = await connect([NODE, CONTROLLABLE]);
    const closed = vi.fn();
    connection.onClosed(closed);
    const serverPid = connection.pid!;
    const grandchild = await spawnGrandchild(connection);
    await connection.close();
    expect(isAlive(serverPid)).toBe(false);
    await expectGone(grandchild);
    expect(registeredProcessGroups()).not.toContain(serverPid);
    await connection.close();
    expect(closed).not.toHaveBeenCalled();
  });

  it("close() also ends a grandchild that ignores SIGTERM", async () => {
    const connection = await connect([NODE, CONTROLLABLE]);
    const grandchild = await spawnGrandchild(connection, true);
    await connection.close();
    await expectGone(grandchild);
  });

  it("close() called twice at once resolves both callers after the process is gone", async () => {
    const connection = await connect([NODE, CONTROLLABLE]);
    const pid = connection.pid!;
    await Promise.all([connection.close(), connection.close()]);
    expect(isAlive(pid)).toBe(false);
  });

  it("rejects a connect to a missing command with 'command not found'", async () => {
    await expect(
      factory.connect(spec(["airlock-no-such-command"]), new MemorySink(), CONNECT),
    ).rejects.toThrow("command not found: airlock-no-such-command");
  });

  it("rejects a connect to a server that exits before initialize, and keeps its stderr", async () => {
    const sink = new MemorySink();
    const failure = await factory.connect(spec([NODE, FAILS_TO_START]), sink, CONNECT).catch((e) => e);
    expect(failure).toBeInstanceOf(UpstreamStartFailure);
    expect(failure).toMatchObject({
      message: "process exited with code 1 before initialize",
      exit: { code: 1, signal: null },
    });
    // Read before the rejection: what it wrote as it died is there for the failure to report.
    expect(sink.lines).toContain("fatal: missing configuration, cannot start");
  });

  it("rejects a connect that does not initialize in time and kills what it started", async () => {
    const sink = new MemorySink();
    const before = registeredProcessGroups();
    // The shell prints its pid, then becomes `sleep`, which never answers initialize.
    const command = ["sh", "-c", "echo $$ >&2; exec sleep 600"];
    await expect(factory.connect(spec(command), sink, { timeoutMs: 300 })).rejects.toThrow(
      "initialize timed out after 300 ms",
    );
    const pid = Number(sink.lines[0]);
    expect(pid).toBeGreaterThan(0);
    await expectGone(pid);
    expect(registeredProcessGroups()).toEqual(before);
  });

  it("rejects an empty command", async () => {
    await expect(factory.connect(spec([]), new MemorySink(), CONNECT)).rejects.toThrow(/non-empty command/);
  });

  it("rejects a call that outlasts timeoutMs with a TimeoutError and stays usable", async () => {
    const connection = await connect([NODE, CONTROLLABLE]);
    const call = connection.callTool("sleep", { ms: 5_000 }, { timeoutMs: 200 });
    await expect(call).rejects.toThrow("tool call timed out after 200 ms");
    await expect(call).rejects.toMatchObject({ name: "TimeoutError" });
    const echo = await connection.callTool("echo", { message: "still here" }, CALL);
    expect(echo.content).toEqual([{ type: "text", text: "still here" }]);
  });

  it("rejects a call with the signal's reason when it is aborted", async () => {
    const connection = await connect([NODE, CONTROLLABLE]);
    const controller = new AbortController();
    const call = connection.callTool("sleep", { ms: 5_000 }, { ...CALL, signal: controller.signal });
    setTimeout(() => controller.abort(new Error("caller went away")), 100);
    await expect(call).rejects.toThrow("caller went away");
    const echo = await connection.callTool("echo", { message: "after abort" }, CALL);
    expect(echo.content).toEqual([{ type: "text", text: "after abort" }]);
  });

  it("killAllProcessGroups() kills every live child and grandchild at once", async () => {
    const first = await connect([NODE, CONTROLLABLE]);
    const second = await connect([NODE, ARITHMETIC]);
    const reasons: string[] = [];
    first.onClosed((reason) => reasons.push(`first: ${reason}`));
    second.onClosed((reason) => reasons.push(`second: ${reason}`));
    const grandchild = await spawnGrandchild(first, true);
    const pids = [first.pid!, second.pid!, grandchild];
    killAllProcessGroups();
    for (const pid of pids) await expectGone(pid);
    await vi.waitFor(() =>
      expect(reasons.sort()).toEqual(["first: killed by signal SIGKILL", "second: killed by signal SIGKILL"]),
    );
    expect(registeredProcessGroups()).toEqual([]);
  });

  it("passes results through as the server sent them, content of types the SDK does not know included", async () => {
    const connection = await connect([NODE, join(scratch, "raw-server.mjs")]);
    expect(await connection.callTool("future", {}, CALL)).toEqual({
      content: [{ type: "hologram", frames: [{ at: 0, data: "AAEC" }] }],
      structuredContent: { frames: 1 },
      _meta: { "example.com/trace": "t-1" },
      extra: "kept",
    });
  });

  it("gives a result without content an empty content list, and keeps the rest", async () => {
    const connection = await connect([NODE, join(scratch, "raw-server.mjs")]);
    expect(await connection.callTool("bare", {}, CALL)).toEqual({ structuredContent: { n: 1 }, content: [] });
  });

  it("runs the command in spec.cwd, where a relative script path is resolved", async () => {
    const connection = await connect([NODE, "raw-server.mjs"], new MemorySink(), {}, scratch);
    const cwd = await connection.callTool("cwd", {}, CALL);
    expect(cwd.content).toEqual([{ type: "text", text: scratch }]);
  });

  it("runs the command in the gateway's working directory when spec.cwd is not set", async () => {
    const connection = await connect([NODE, join(scratch, "raw-server.mjs")]);
    const cwd = await connection.callTool("cwd", {}, CALL);
    expect(cwd.content).toEqual([{ type: "text", text: process.cwd() }]);
  });

  it("rejects a working directory that does not exist without naming it", async () => {
    const missing = join(scratch, "no-such-directory");
    const failure = factory.connect(spec([NODE, "raw-server.mjs"], {}, missing), new MemorySink(), CONNECT);
    await expect(failure).rejects.toThrow(
      `cannot start ${NODE}: its working directory is missing or not a directory`,
    );
    await expect(failure).rejects.not.toThrow(/no-such-directory/);
  });

  it("gives a child only spec.env when no base environment is passed", async () => {
    const bare = new SubprocessUpstreamFactory({ stopTiming: STOP_TIMING });
    const connection = await connect(
      [NODE, CONTROLLABLE],
      new MemorySink(),
      { GREETING: "hi" },
      undefined,
      bare,
    );
    const read = async (name: string) => (await connection.callTool("env", { name }, CALL)).structuredContent;
    expect(await read("GREETING")).toEqual({ name: "GREETING", value: "hi" });
    expect(await read("PATH")).toEqual({ name: "PATH", value: null });
  });

  it("stops a server that sends a message larger than maxMessageBytes, and says why", async () => {
    const small = new SubprocessUpstreamFactory({ stopTiming: STOP_TIMING, maxMessageBytes: 4_096 });
    const connection = await connect([NODE, CONTROLLABLE], new MemorySink(), {}, undefined, small);
    const reasons: string[] = [];
    connection.onClosed((reason) => reasons.push(reason));
    await expect(connection.callTool("echo", { message: "x".repeat(5_000) }, CALL)).rejects.toThrow(
      "upstream connection closed: the server sent a message larger than 4096 bytes",
    );
    await vi.waitFor(() => expect(reasons).toEqual(["the server sent a message larger than 4096 bytes"]));
    await expectGone(connection.pid!);
  });

  it("reports stdout lines that are not JSON-RPC to the log sink and keeps reading", async () => {
    const stdout: string[] = [];
    const sink: LogSink = {
      append: (stream, line) => {
        if (stream === "stdout") stdout.push(line);
      },
    };
    const wrapper = `echo 'not json'; echo '{"jsonrpc":"2.0"}'; exec "${NODE}" "${CONTROLLABLE}"`;
    const connection = await connect(["sh", "-c", wrapper], sink);
    expect(stdout).toHaveLength(2);
    expect(stdout.every((line) => line.startsWith("ignored a stdout line that is not JSON-RPC: "))).toBe(
      true,
    );
    const echo = await connection.callTool("echo", { message: "still reading" }, CALL);
    expect(echo.content).toEqual([{ type: "text", text: "still reading" }]);
  });
});
