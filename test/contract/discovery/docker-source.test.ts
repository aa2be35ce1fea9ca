import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { DockerDiscoverySource } from "../../../src/adapters/discovery/docker/docker-discovery-source.js";
import { createEngineClient } from "../../../src/adapters/upstream/docker/engine-client.js";
import {
  type DockerEngineFake,
  startDockerEngineFake,
} from "../../fixtures/docker-fake/docker-engine-fake.js";

const IMAGE = "airlock-test/controllable";

let dir: string;
let engine: DockerEngineFake;
let source: DockerDiscoverySource;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "airlock-discovery-docker-"));
  engine = await startDockerEngineFake({ socketPath: join(dir, "docker.sock"), networks: ["mcp-net"] });
  source = new DockerDiscoverySource({ client: createEngineClient({ socketPath: engine.socketPath }) });
});

afterEach(async () => {
  await Promise.all(engine.containers().map((container) => container.forceRemove()));
});

afterAll(async () => {
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
});

const scan = () => source.scan(AbortSignal.timeout(10_000));

function ipOf(containerName: string, network: string): string {
  const container = engine.containers().find((candidate) => candidate.name === containerName);
  const address = container?.networks[network]?.ipAddress ?? "";
  expect(address).toMatch(/^172\.\d+\.\d+\.\d+$/);
  return address;
}

describe("Docker discovery source", () => {
  it("maps a labelled container to a remote server at its address, with the label defaults", async () => {
    await engine.run({
      image: IMAGE,
      name: "weather-1",
      labels: { "airlock.enabled": "true", "airlock.name": "weather" },
    });
    const { servers, problems } = await scan();
    expect(problems).toEqual([]);
    const container = engine.containers()[0];
    expect(servers).toEqual([
      {
        name: "weather",
        definition: { mode: "remote", endpoint: `http://${ipOf("weather-1", "bridge")}:8080/mcp` },
        connectionInfo: {
          container_id: container?.id,
          container_name: "weather-1",
          image: IMAGE,
          network: "bridge",
        },
      },
    ]);
  });

  it("reads port, path and group labels, and the first network that gives an address", async () => {
    await engine.run({
      image: IMAGE,
      name: "search",
      network: "mcp-net",
      extraNetworks: ["bridge"],
      labels: {
        "airlock.enabled": "true",
        "airlock.name": "search",
        "airlock.mode": "http",
        "airlock.port": "9000",
        "airlock.path": "/rpc",
        "airlock.group": "tools",
      },
    });
    const { servers } = await scan();
    // Networks are listed in name order: bridge before mcp-net.
    expect(servers[0]?.definition).toEqual({
      mode: "remote",
      endpoint: `http://${ipOf("search", "bridge")}:9000/rpc`,
    });
    expect(servers[0]?.group).toBe("tools");
  });

  it("maps airlock.mode=container to a docker server running the same image", async () => {
    await engine.run({
      image: IMAGE,
      name: "stdio-one",
      labels: { "airlock.enabled": "true", "airlock.name": "stdio-one", "airlock.mode": "container" },
    });
    const { servers } = await scan();
    expect(servers.map((server) => server.definition)).toEqual([{ mode: "docker", image: IMAGE }]);
  });

  it("asks the engine for running containers with airlock.enabled=true only", async () => {
    await engine.run({ image: IMAGE, name: "plain" });
    await engine.run({
      image: IMAGE,
      name: "disabled",
      labels: { "airlock.enabled": "false", "airlock.name": "disabled" },
    });
    const stopped = await engine.run({
      image: IMAGE,
      name: "stopped",
      labels: { "airlock.enabled": "true", "airlock.name": "stopped" },
    });
    await stopped.stop(1);
    const before = engine.requests.length;
    const { servers, problems } = await scan();
    expect(servers).toEqual([]);
    expect(problems).toEqual([]);
    const request = engine.requests.slice(before).find((entry) => entry.path === "/containers/json");
    expect(JSON.parse(request?.query.filters ?? "{}")).toEqual({
      label: ["airlock.enabled=true"],
      status: ["running"],
    });
  });

  it("reports labels that cannot make a server as problem lines, and keeps the rest", async () => {
    const enabled = { "airlock.enabled": "true" };
    await engine.run({ image: IMAGE, name: "a-no-name", labels: enabled });
    await engine.run({
      image: IMAGE,
      name: "b-bad-name",
      labels: { ...enabled, "airlock.name": "bad name!" },
    });
    await engine.run({
      image: IMAGE,
      name: "c-bad-port",
      labels: { ...enabled, "airlock.name": "c", "airlock.port": "http" },
    });
    await engine.run({
      image: IMAGE,
      name: "d-bad-mode",
      labels: { ...enabled, "airlock.name": "d", "airlock.mode": "sse" },
    });
    await engine.run({
      image: IMAGE,
      name: "e-host",
      network: "host",
      labels: { ...enabled, "airlock.name": "e" },
    });
    await engine.run({ image: IMAGE, name: "f-good", labels: { ...enabled, "airlock.name": "good" } });
    await engine.run({ image: IMAGE, name: "g-twin", labels: { ...enabled, "airlock.name": "good" } });
    await engine.run({
      image: IMAGE,
      name: "h-bad-path",
      labels: { ...enabled, "airlock.name": "h", "airlock.path": "mcp" },
    });
    const { servers, problems } = await scan();
    expect(servers.map((server) => [server.name, server.connectionInfo.container_name])).toEqual([
      ["good", "f-good"],
    ]);
    expect(problems).toEqual([
      'container "a-no-name": airlock.name is required',
      expect.stringMatching(/^container "b-bad-name": airlock.name "bad name!" is not a valid server id/),
      'container "c-bad-port": airlock.port "http" must be a port number 1-65535',
      'container "d-bad-mode": airlock.mode "sse" must be container or http',
      expect.stringMatching(/^container "e-host": has no IP address on any network/),
      'container "g-twin": name "good" is already used by container "f-good"; ignored',
      'container "h-bad-path": airlock.path "mcp" must be an absolute path such as /mcp',
    ]);
  });

  it("no longer finds a container once it has stopped or been removed", async () => {
    const labels = (name: string) => ({ "airlock.enabled": "true", "airlock.name": name });
    const one = await engine.run({ image: IMAGE, name: "one", labels: labels("one") });
    const two = await engine.run({ image: IMAGE, name: "two", labels: labels("two") });
    expect((await scan()).servers.map((server) => server.name)).toEqual(["one", "two"]);
    await one.stop(1);
    expect((await scan()).servers.map((server) => server.name)).toEqual(["two"]);
    await two.forceRemove();
    expect((await scan()).servers).toEqual([]);
  });

  it("watch follows the engine's events: a labelled container starting, then stopping", async () => {
    const watching = new DockerDiscoverySource({
      client: createEngineClient({ socketPath: engine.socketPath }),
    });
    let notify: () => void = () => {};
    const next = () =>
      new Promise<void>((resolve) => {
        notify = resolve;
      });
    const since = engine.requests.length;
    let started = next();
    const stop = watching.watch(() => notify());
    try {
      const subscribed = () => engine.requests.slice(since).find((request) => request.path === "/events");
      await vi.waitFor(() => expect(subscribed()).toBeDefined());
      expect(JSON.parse(subscribed()?.query.filters ?? "{}")).toEqual({
        type: ["container"],
        event: ["start", "die", "destroy"],
        label: ["airlock.enabled=true"],
      });
      const container = await engine.run({
        image: IMAGE,
        name: "watched",
        labels: { "airlock.enabled": "true", "airlock.name": "watched" },
      });
      await started;
      expect((await scan()).servers.map((server) => server.name)).toEqual(["watched"]);
      started = next();
      await container.stop(1);
      await started;
      expect((await scan()).servers).toEqual([]);
    } finally {
      stop();
    }
  });

  it("rejects when the engine's socket is missing, naming the runtime and the code, not the path", async () => {
    const missing = new DockerDiscoverySource({
      client: createEngineClient({ socketPath: join(dir, "absent.sock") }),
      runtime: "podman",
    });
    const failure = missing.scan(AbortSignal.timeout(10_000));
    await expect(failure).rejects.toThrow("cannot reach the podman engine (ENOENT)");
    await expect(failure).rejects.not.toThrow(/absent\.sock/);
  });

  describe("against an engine that fails", () => {
    let broken: Server;
    const brokenSocket = () => join(dir, "broken.sock");

    beforeAll(async () => {
      broken = createServer((_req, res) => {
        res.writeHead(500, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ message: "Error response from daemon: internal failure" }));
      });
      await new Promise<void>((resolve) => broken.listen(brokenSocket(), resolve));
    });

    afterAll(async () => {
      await new Promise<void>((resolve) => broken.close(() => resolve()));
    });

    it("rejects with the status when the engine answers an error", async () => {
      const failing = new DockerDiscoverySource({
        client: createEngineClient({ socketPath: brokenSocket() }),
      });
      await expect(failing.scan(AbortSignal.timeout(10_000))).rejects.toThrow(
        "the docker engine answered HTTP 500 to the container list",
      );
    });
  });

  it("rejects a scan whose signal is already aborted", async () => {
    await expect(source.scan(AbortSignal.abort())).rejects.toThrow(/abandoned|aborted/);
  });
});
