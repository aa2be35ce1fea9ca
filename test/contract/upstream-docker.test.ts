import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Docker from "dockerode";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { LABELS } from "../../src/adapters/upstream/docker/container-config.js";
import {
  PROCESS_ID,
  removeProcessContainers,
  trackedContainers,
} from "../../src/adapters/upstream/docker/container-registry.js";
import type { DockerConnection } from "../../src/adapters/upstream/docker/docker-connection.js";
import { DockerUpstreamFactory } from "../../src/adapters/upstream/docker/docker-upstream-factory.js";
import { FrameDemuxer } from "../../src/adapters/upstream/docker/frame-demuxer.js";
import type { LogSink, UpstreamConnection } from "../../src/app/ports/upstream.js";
import type { ServerSpec } from "../../src/domain/server/server-spec.js";
import { type DockerEngineFake, startDockerEngineFake } from "../fixtures/docker-fake/docker-engine-fake.js";
import { frame } from "../fixtures/docker-fake/fake-container.js";
import { ARITHMETIC_SERVER, defaultImages, makeImage } from "../fixtures/docker-fake/fake-images.js";
import { isAlive } from "../support/processes.js";

const CONNECT = { timeoutMs: 10_000 };
const CALL = { timeoutMs: 10_000 };

let dir: string;
let engine: DockerEngineFake;
let factory: DockerUpstreamFactory;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "airlock-docker-"));
  engine = await startDockerEngineFake({
    socketPath: join(dir, "docker.sock"),
    networks: ["mcp-net"],
    tcp: true,
    images: [
      ...defaultImages(),
      makeImage("airlock-test/broken-entrypoint", { entrypoint: ["airlock-no-such-binary"] }),
    ],
  });
  // One second of stop grace keeps the suite quick; the servers here exit on SIGTERM anyway.
  factory = new DockerUpstreamFactory({ socketPath: engine.socketPath }, { stopTimeoutS: 1 });
});

afterAll(async () => {
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
});

function spec(image: string, extra: Partial<ServerSpec> = {}): ServerSpec {
  return {
    id: "under-test",
    mode: "docker",
    image,
    env: {},
    idle_ttl_s: 300,
    health_check_interval_s: 60,
    max_consecutive_failures: 3,
    source: "api",
    ...extra,
  };
}

class MemorySink implements LogSink {
  readonly stderr: string[] = [];
  readonly stdout: string[] = [];
  append(stream: "stderr" | "stdout", line: string): void {
    this[stream].push(line);
  }
}

const open: UpstreamConnection[] = [];
async function connect(server: ServerSpec, sink: LogSink = new MemorySink()): Promise<DockerConnection> {
  const connection = (await factory.connect(server, sink, CONNECT)) as DockerConnection;
  open.push(connection);
  return connection;
}

/** The body of the engine's last `POST /containers/create`. */
function lastCreateBody(): Record<string, unknown> {
  const creates = engine.requests.filter((r) => r.method === "POST" && r.path === "/containers/create");
  return creates.at(-1)?.body as Record<string, unknown>;
}

function containerOf(connection: DockerConnection) {
  return engine.allContainers().find((container) => container.id === connection.containerId)!;
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((connection) => connection.close()));
});

describe("DockerUpstreamFactory against the fake engine", () => {
  it("runs the image's MCP server in a container, lists its tools and calls them", async () => {
    const connection = await connect(spec("airlock-test/arithmetic"));
    const tools = await connection.listTools(CALL);
    expect(tools.map((tool) => tool.name).sort()).toEqual(["add", "divide", "multiply", "subtract", "sum"]);
    expect(tools.find((tool) => tool.name === "add")?.inputSchema).toMatchObject({ required: ["a", "b"] });
    const sum = await connection.callTool("sum", { numbers: [1, 2, 3.5] }, CALL);
    expect(sum).toMatchObject({
      content: [{ type: "text", text: "6.5" }],
      structuredContent: { result: 6.5 },
    });
    const divide = await connection.callTool("divide", { a: 1, b: 0 }, CALL);
    expect(divide.isError).toBe(true);
    expect(containerOf(connection).state).toBe("running");
  });

  it("creates, attaches and starts in that order, and attaches without a request body", async () => {
    const before = engine.requests.length;
    await connect(spec("airlock-test/controllable"));
    const calls = engine.requests
      .slice(before)
      .map((r) => `${r.method} ${r.path.replace(/[0-9a-f]{64}/, "{id}")}`);
    expect(calls.slice(0, 5)).toEqual([
      "GET /images/airlock-test/controllable/json",
      "POST /containers/create",
      "POST /containers/{id}/attach",
      "POST /containers/{id}/start",
      "POST /containers/{id}/wait",
    ]);
    const attach = engine.requests.slice(before).find((r) => r.path.endsWith("/attach"))!;
    expect(attach.query).toMatchObject({ stream: "1", stdin: "1", stdout: "1", stderr: "1" });
    expect(attach.headers["content-length"]).toBe("0");
    expect(attach.headers.upgrade).toBe("tcp");
  });

  it("keeps the create body out of the request URL", async () => {
    await connect(spec("airlock-test/controllable", { env: { API_TOKEN: "secret-value" } }));
    const create = engine.requests.filter((r) => r.path === "/containers/create").at(-1)!;
    expect(Object.keys(create.query)).toEqual(["name"]);
    expect(create.query.name).toMatch(/^airlock-under-test-[0-9a-f]{8}$/);
  });

  it("applies the spec 2 defaults when the server has no docker options (REST registration)", async () => {
    await connect(spec("airlock-test/controllable"));
    const body = lastCreateBody();
    expect(body).toMatchObject({
      Image: "airlock-test/controllable",
      AttachStdin: true,
      AttachStdout: true,
      AttachStderr: true,
      OpenStdin: true,
      StdinOnce: false,
      Tty: false,
      Env: [],
      Labels: { "airlock.managed": "true", "airlock.server": "under-test", "airlock.process": PROCESS_ID },
      HostConfig: {
        Binds: [],
        NetworkMode: "none",
        ReadonlyRootfs: true,
        Memory: 536870912,
        NanoCpus: 1000000000,
        AutoRemove: false,
      },
    });
    expect(body).not.toHaveProperty("Cmd");
    expect(body).not.toHaveProperty("User");
  });

  it("honours every docker key of a configuration entry in the create body", async () => {
    const options = {
      volumes: ["/srv/data:/data:ro", "cache:/cache"],
      network: "mcp-net",
      read_only: false,
      resources: { memory: "1.5g", cpu: 0.5 },
      user: "current",
    };
    const server = spec("airlock-test/node", {
      args: [ARITHMETIC_SERVER],
      env: { GREETING: "hello", EMPTY: "" },
      options,
      source: "config",
    });
    const connection = await connect(server);
    expect(lastCreateBody()).toMatchObject({
      Cmd: [ARITHMETIC_SERVER],
      Env: ["GREETING=hello", "EMPTY="],
      User: `${process.getuid!()}:${process.getgid!()}`,
      HostConfig: {
        Binds: ["/srv/data:/data:ro", "cache:/cache"],
        NetworkMode: "mcp-net",
        ReadonlyRootfs: false,
        Memory: 1610612736,
        NanoCpus: 500000000,
      },
    });
    // `args` replaced the image's command: the node image now runs the arithmetic server.
    expect((await connection.listTools(CALL)).map((tool) => tool.name)).toContain("sum");
  });

  it("passes a user other than current through unchanged", async () => {
    await connect(spec("airlock-test/controllable", { options: { user: "1234:5678" } }));
    expect(lastCreateBody().User).toBe("1234:5678");
  });

  it("passes env to the server inside the container", async () => {
    const connection = await connect(spec("airlock-test/controllable", { env: { GREETING: "hello" } }));
    const read = async (name: string) => (await connection.callTool("env", { name }, CALL)).structuredContent;
    expect(await read("GREETING")).toEqual({ name: "GREETING", value: "hello" });
    expect(await read("HOSTNAME")).toEqual({ name: "HOSTNAME", value: connection.containerId.slice(0, 12) });
  });

  it("forwards each stderr line of the server to the log sink", async () => {
    const sink = new MemorySink();
    const connection = await connect(spec("airlock-test/controllable"), sink);
    await connection.callTool("stderr", { line: "first line" }, CALL);
    await connection.callTool("stderr", { line: "second line" }, CALL);
    await vi.waitFor(() =>
      expect(sink.stderr).toEqual(["controllable server ready", "first line", "second line"]),
    );
  });

  it("carries a response larger than one 32 KiB frame intact", async () => {
    const connection = await connect(spec("airlock-test/controllable"));
    const message = "x".repeat(200_000);
    const echo = await connection.callTool("echo", { message }, CALL);
    expect(echo.content).toEqual([{ type: "text", text: message }]);
  });

  it("close() stops and removes the container, kills its processes and does not fire onClosed", async () => {
    const connection = await connect(spec("airlock-test/controllable"));
    const closed = vi.fn();
    connection.onClosed(closed);
    const container = containerOf(connection);
    const pid = container.pid!;
    expect(isAlive(pid)).toBe(true);
    await connection.close();
    expect(container.removed).toBe(true);
    expect(isAlive(pid)).toBe(false);
    expect(engine.containers().map((c) => c.id)).not.toContain(connection.containerId);
    expect(trackedContainers()).not.toContain(connection.containerId);
    const ids = engine.requests.filter((r) => r.path.includes(connection.containerId));
    expect(ids.map((r) => `${r.method} ${r.path.split("/").at(-1)}`)).toEqual(
      expect.arrayContaining([`POST stop`, `DELETE ${connection.containerId}`]),
    );
    expect(ids.find((r) => r.method === "POST" && r.path.endsWith("/stop"))?.query.t).toBe("1");
    expect(ids.find((r) => r.method === "DELETE")?.query.force).toBe("true");
    await connection.close();
    expect(closed).not.toHaveBeenCalled();
  });

  it("close() called twice at once resolves both callers after the container is removed", async () => {
    const connection = await connect(spec("airlock-test/controllable"));
    const container = containerOf(connection);
    await Promise.all([connection.close(), connection.close()]);
    expect(container.removed).toBe(true);
  });

  it("fires onClosed once with the exit code when the server crashes, fails the call in flight and removes the container", async () => {
    const connection = await connect(spec("airlock-test/controllable"));
    const container = containerOf(connection);
    const reasons: string[] = [];
    connection.onClosed((reason) => reasons.push(reason));
    await expect(connection.callTool("crash", {}, CALL)).rejects.toThrow(
      "upstream connection closed: container exited with code 3",
    );
    await vi.waitFor(() => expect(reasons).toEqual(["container exited with code 3"]));
    const late = await new Promise<string>((resolve) => connection.onClosed(resolve));
    expect(late).toBe("container exited with code 3");
    await connection.removed;
    expect(container.removed).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(reasons).toHaveLength(1);
    await expect(connection.callTool("echo", { message: "x" }, CALL)).rejects.toThrow();
  });

  it("reports a container killed from outside with the engine's exit code", async () => {
    const connection = await connect(spec("airlock-test/controllable"));
    const reasons: string[] = [];
    connection.onClosed((reason) => reasons.push(reason));
    await new Docker({ socketPath: engine.socketPath }).getContainer(connection.containerId).kill();
    await vi.waitFor(() => expect(reasons).toEqual(["container exited with code 137"]));
  });

  it("rejects a missing image with a message naming it, and creates no container", async () => {
    const before = engine.allContainers().length;
    const failure = factory.connect(spec("airlock-test/no-such-image:1.0"), new MemorySink(), CONNECT);
    await expect(failure).rejects.toThrow(
      /^image not found: airlock-test\/no-such-image:1\.0 \(images are never pulled/,
    );
    expect(engine.allContainers()).toHaveLength(before);
    expect(engine.requests.some((r) => r.path.startsWith("/images/create"))).toBe(false);
  });

  it("rejects a server that exits before initialize, keeps its stderr and removes its container", async () => {
    const sink = new MemorySink();
    const before = engine.allContainers().length;
    await expect(factory.connect(spec("airlock-test/fails-to-start"), sink, CONNECT)).rejects.toMatchObject({
      name: "UpstreamStartFailure",
      message: "container exited with code 1 before initialize",
      exit: { code: 1, signal: null },
    });
    expect(sink.stderr).toContain("fatal: missing configuration, cannot start");
    const created = engine.allContainers().slice(before);
    expect(created).toHaveLength(1);
    expect(created[0]?.removed).toBe(true);
  });

  it("rejects an entrypoint the container cannot execute with the engine's message and removes the container", async () => {
    const before = engine.allContainers().length;
    const failure = factory.connect(spec("airlock-test/broken-entrypoint"), new MemorySink(), CONNECT);
    await expect(failure).rejects.toThrow(
      /^cannot start the container: .*exec: "airlock-no-such-binary": executable file not found in \$PATH/,
    );
    const created = engine.allContainers().slice(before);
    expect(created).toHaveLength(1);
    expect(created[0]?.removed).toBe(true);
  });

  it("rejects an unknown network with the engine's message and leaves no container", async () => {
    const failure = factory.connect(
      spec("airlock-test/controllable", { options: { network: "nope" } }),
      new MemorySink(),
      CONNECT,
    );
    await expect(failure).rejects.toThrow("cannot create the container: network nope not found");
    expect(engine.containers()).toHaveLength(open.length);
  });

  it("rejects a connect that does not initialize in time and removes the container", async () => {
    const before = engine.allContainers().length;
    // `node -e` with a long timer: a process that never answers initialize.
    const server = spec("airlock-test/node", { args: ["-e", "setTimeout(() => {}, 600000)"] });
    await expect(factory.connect(server, new MemorySink(), { timeoutMs: 500 })).rejects.toThrow(
      "initialize timed out after 500 ms",
    );
    const created = engine.allContainers().slice(before);
    expect(created).toHaveLength(1);
    expect(created[0]?.removed).toBe(true);
  });

  it("rejects a call that outlasts timeoutMs with a TimeoutError and stays usable", async () => {
    const connection = await connect(spec("airlock-test/controllable"));
    const call = connection.callTool("sleep", { ms: 5_000 }, { timeoutMs: 200 });
    await expect(call).rejects.toThrow("tool call timed out after 200 ms");
    await expect(call).rejects.toMatchObject({ name: "TimeoutError" });
    const echo = await connection.callTool("echo", { message: "still here" }, CALL);
    expect(echo.content).toEqual([{ type: "text", text: "still here" }]);
  });

  it("rejects a call with the signal's reason when it is aborted", async () => {
    const connection = await connect(spec("airlock-test/controllable"));
    const controller = new AbortController();
    const call = connection.callTool("sleep", { ms: 5_000 }, { ...CALL, signal: controller.signal });
    setTimeout(() => controller.abort(new Error("caller went away")), 100);
    await expect(call).rejects.toThrow("caller went away");
  });

  it("rejects a start abandoned through its signal and removes what it created", async () => {
    const before = engine.allContainers().length;
    const controller = new AbortController();
    const server = spec("airlock-test/node", { args: ["-e", "setTimeout(() => {}, 600000)"] });
    const failure = factory.connect(server, new MemorySink(), { ...CONNECT, signal: controller.signal });
    setTimeout(() => controller.abort(), 300);
    await expect(failure).rejects.toThrow("start abandoned: the server was stopped");
    expect(
      engine
        .allContainers()
        .slice(before)
        .every((container) => container.removed),
    ).toBe(true);
  });

  it("says the engine cannot be reached without naming its socket", async () => {
    const unreachable = new DockerUpstreamFactory(
      { socketPath: join(dir, "nothing-here.sock") },
      { runtime: "podman" },
    );
    const failure = unreachable.connect(spec("airlock-test/controllable"), new MemorySink(), CONNECT);
    await expect(failure).rejects.toThrow(
      "cannot check image airlock-test/controllable: cannot reach the podman engine (ENOENT)",
    );
    await expect(failure).rejects.not.toThrow(/nothing-here/);
  });

  it("reaches the engine over tcp:// as well as a unix socket", async () => {
    const overTcp = new DockerUpstreamFactory(engine.tcp!, { stopTimeoutS: 1 });
    const connection = (await overTcp.connect(
      spec("airlock-test/arithmetic"),
      new MemorySink(),
      CONNECT,
    )) as DockerConnection;
    open.push(connection);
    const sum = await connection.callTool("add", { a: 2, b: 3 }, CALL);
    expect(sum.structuredContent).toEqual({ result: 5 });
  });

  it("uses only the endpoint it was given, whatever DOCKER_HOST says", async () => {
    process.env.DOCKER_HOST = "tcp://127.0.0.1:1";
    try {
      const isolated = new DockerUpstreamFactory({ socketPath: engine.socketPath }, { stopTimeoutS: 1 });
      const connection = await isolated.connect(spec("airlock-test/controllable"), new MemorySink(), CONNECT);
      open.push(connection);
      expect(await connection.listTools(CALL)).not.toHaveLength(0);
    } finally {
      delete process.env.DOCKER_HOST;
    }
  });

  it("stops and removes a container whose attach stream is lost while it runs, firing onClosed", async () => {
    const connection = await connect(spec("airlock-test/controllable"));
    const container = containerOf(connection);
    const reasons: string[] = [];
    connection.onClosed((reason) => reasons.push(reason));
    container.dropAttachments();
    await vi.waitFor(
      () => expect(reasons).toEqual(["lost the container's attach stream while it was running"]),
      {
        timeout: 5_000,
      },
    );
    await connection.removed;
    expect(container.removed).toBe(true);
  });

  it("rejects another mode and a missing image name", async () => {
    await expect(
      factory.connect({ ...spec("x"), mode: "subprocess" }, new MemorySink(), CONNECT),
    ).rejects.toThrow("cannot run mode 'subprocess' in a container");
    await expect(factory.connect({ ...spec("x"), image: " " }, new MemorySink(), CONNECT)).rejects.toThrow(
      "docker server needs an image",
    );
  });

  it("removeProcessContainers() removes every container of this process and no other", async () => {
    const first = await connect(spec("airlock-test/controllable"));
    const second = await connect(spec("airlock-test/arithmetic"));
    const docker = new Docker({ socketPath: engine.socketPath });
    const foreign = await docker.createContainer({
      Image: "airlock-test/controllable",
      Labels: { [LABELS.managed]: "true", [LABELS.process]: "another-gateway" },
    });
    const result = await removeProcessContainers({ socketPath: engine.socketPath });
    expect(result.failed).toEqual([]);
    expect(result.removed.sort()).toEqual([first.containerId, second.containerId].sort());
    expect(engine.containers().map((container) => container.id)).toEqual([foreign.id]);
    expect(trackedContainers()).toEqual([]);
    await foreign.remove({ force: true });
  });
});

describe("image builds", () => {
  let context: string;

  beforeAll(() => {
    context = join(dir, "build-context");
    mkdirSync(context);
    writeFileSync(
      join(context, "Dockerfile.mcp"),
      "FROM airlock-test/controllable\nARG FLAVOUR=plain\nENV FLAVOUR=$FLAVOUR\nLABEL org.example.built=yes\n",
    );
    writeFileSync(join(context, "Broken.dockerfile"), "FROM registry.example/unknown:1\n");
  });

  it("builds the image from the context with its dockerfile and args, then runs it", async () => {
    const sink = new MemorySink();
    const build = { context, dockerfile: "Dockerfile.mcp", args: { FLAVOUR: "spicy" } };
    const connection = await connect(spec("airlock-test/built:1", { options: { build } }), sink);
    const request = engine.requests.filter((r) => r.path === "/build").at(-1)!;
    expect(request.query).toMatchObject({ t: "airlock-test/built:1", dockerfile: "Dockerfile.mcp" });
    expect(JSON.parse(request.query.buildargs ?? "{}")).toEqual({ FLAVOUR: "spicy" });
    expect(sink.stdout).toContain("Successfully tagged airlock-test/built:1");
    const flavour = await connection.callTool("env", { name: "FLAVOUR" }, CALL);
    expect(flavour.structuredContent).toEqual({ name: "FLAVOUR", value: "spicy" });
    // A second start reuses the tag built by this process.
    const builds = engine.requests.filter((r) => r.path === "/build").length;
    await connect(spec("airlock-test/built:1", { options: { build } }));
    expect(engine.requests.filter((r) => r.path === "/build")).toHaveLength(builds);
  });

  it("resolves a relative build context against the server's working directory", async () => {
    const build = { context: "build-context", dockerfile: "Dockerfile.mcp", args: { FLAVOUR: "mild" } };
    const connection = await connect(spec("airlock-test/built-relative:1", { options: { build }, cwd: dir }));
    const flavour = await connection.callTool("env", { name: "FLAVOUR" }, CALL);
    expect(flavour.structuredContent).toEqual({ name: "FLAVOUR", value: "mild" });
  });

  it("rejects a failed build with the builder's error and creates no container", async () => {
    const before = engine.allContainers().length;
    const build = { context, dockerfile: "Broken.dockerfile", args: {} };
    const failure = factory.connect(
      spec("airlock-test/broken", { options: { build } }),
      new MemorySink(),
      CONNECT,
    );
    await expect(failure).rejects.toThrow(
      "cannot build image airlock-test/broken: pull access denied for registry.example/unknown, repository does not exist",
    );
    expect(engine.allContainers()).toHaveLength(before);
  });

  it("rejects a build context that is not a directory without naming the path", async () => {
    const build = { context: join(dir, "missing"), dockerfile: "Dockerfile", args: {} };
    const failure = factory.connect(
      spec("airlock-test/nowhere", { options: { build } }),
      new MemorySink(),
      CONNECT,
    );
    await expect(failure).rejects.toThrow(
      "cannot build image airlock-test/nowhere: the build context is not a readable directory",
    );
  });
});

describe("FrameDemuxer", () => {
  function demux(chunks: Buffer[]) {
    const out: Record<"stdout" | "stderr", Buffer[]> = { stdout: [], stderr: [] };
    const corrupt: number[] = [];
    const demuxer = new FrameDemuxer(
      (stream, bytes) => out[stream].push(Buffer.from(bytes)),
      (byte) => corrupt.push(byte),
    );
    for (const chunk of chunks) demuxer.push(chunk);
    return {
      stdout: Buffer.concat(out.stdout).toString(),
      stderr: Buffer.concat(out.stderr).toString(),
      corrupt,
    };
  }

  it("separates stdout and stderr frames however the bytes are cut", () => {
    const wire = Buffer.concat([
      ...frame(1, Buffer.from('{"a":1}\n')),
      ...frame(2, Buffer.from("warning\n")),
      ...frame(1, Buffer.from('{"b":2}\n')),
    ]);
    for (let size = 1; size <= wire.length; size++) {
      const chunks: Buffer[] = [];
      for (let start = 0; start < wire.length; start += size) chunks.push(wire.subarray(start, start + size));
      expect(demux(chunks)).toEqual({ stdout: '{"a":1}\n{"b":2}\n', stderr: "warning\n", corrupt: [] });
    }
  });

  it("stops at a header whose stream byte is not 0, 1 or 2", () => {
    const wire = Buffer.concat([...frame(1, Buffer.from("ok")), Buffer.from("{not framed}")]);
    expect(demux([wire])).toEqual({ stdout: "ok", stderr: "", corrupt: [0x7b] });
  });
});
