import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGateway, type Gateway } from "../../src/composition/create-gateway.js";
import { memoryStorage } from "../../src/composition/open-storage.js";
import { parseConfig } from "../../src/config/load.js";
import { type DockerEngineFake, startDockerEngineFake } from "../fixtures/docker-fake/docker-engine-fake.js";
import { type HttpMcpServer, startHttpMcpServer } from "../support/http-mcp-server.js";

let engine: DockerEngineFake;
let remote: HttpMcpServer;
let gateway: Gateway;

beforeAll(async () => {
  const socketPath = join(mkdtempSync(join(tmpdir(), "airlock-engine-")), "docker.sock");
  engine = await startDockerEngineFake({ socketPath });
  remote = await startHttpMcpServer();
  const { config, env } = parseConfig(
    `
mcp_servers:
  boxed:
    mode: container
    image: airlock-test/arithmetic
  far:
    mode: remote
    endpoint: ${remote.url}
`,
    { env: { DOCKER_HOST: `unix://${socketPath}` } },
  );
  gateway = await createGateway({
    config,
    env,
    logger: pino({ level: "silent" }),
    instanceLabel: "modes",
    storage: memoryStorage(),
  });
});

afterAll(async () => {
  await gateway?.shutdown();
  await remote?.close();
  await engine?.close();
});

const call = async (server: string, tool: string, args: Record<string, unknown>) => {
  const { fleet, invoker } = gateway.services;
  return invoker.call(fleet.require(server), tool, args, { callId: "t", timeoutMs: 10_000 });
};

describe("every upstream mode through the gateway", () => {
  it("runs a container server (mode container, an alias of docker) through the engine API", async () => {
    const { result } = await call("boxed", "add", { a: 20, b: 22 });
    expect(JSON.stringify(result.content)).toContain("42");
    expect(engine.containers()).toHaveLength(1);
    const create = engine.requests.find((r) => r.method === "POST" && r.path === "/containers/create");
    expect(create?.body).toMatchObject({
      Image: "airlock-test/arithmetic",
      HostConfig: { NetworkMode: "none" },
    });
  });

  it("removes the container when the server stops", async () => {
    await gateway.services.fleet.stopServer(gateway.services.fleet.require("boxed"), "user_request");
    expect(engine.containers()).toHaveLength(0);
  });

  it("calls a remote server declared in the configuration (trusted, even on loopback)", async () => {
    const { result } = await call("far", "shout", { text: "hello" });
    expect(result.content[0]).toMatchObject({ text: "HELLO" });
  });
});

describe("the SSRF guard on REST registration", () => {
  let app: Awaited<ReturnType<Gateway["http"]>>;
  beforeAll(async () => {
    app = await gateway.http();
  });

  it.each([
    ["link-local metadata", "http://169.254.169.254/latest/meta-data"],
    ["loopback", "http://127.0.0.1:8080/mcp"],
    ["loopback in hex short form", "http://0x7f.1/mcp"],
    ["private", "http://10.0.0.5/mcp"],
    ["IPv4-mapped IPv6 loopback", "http://[::ffff:127.0.0.1]/mcp"],
  ])("refuses a %s endpoint with 400 ssrf_blocked and registers nothing", async (_name, endpoint) => {
    const res = await app.inject({
      method: "POST",
      url: "/api/mcp_servers/",
      payload: { mcp_server_id: "sneaky", mode: "remote", endpoint },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: "ssrf_blocked", detail: expect.any(String) });
    expect(gateway.services.fleet.has("sneaky")).toBe(false);
  });

  it("accepts a public address", async () => {
    const res = await app.inject({
      method: "POST",
      url: "/api/mcp_servers/",
      payload: { mcp_server_id: "public", mode: "remote", endpoint: "https://93.184.216.34/mcp" },
    });
    expect(res.statusCode).toBe(201);
  });
});
