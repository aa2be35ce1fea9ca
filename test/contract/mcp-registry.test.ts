import { createServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { CachingMcpRegistry } from "../../src/adapters/registry/caching-mcp-registry.js";
import { HttpMcpRegistry } from "../../src/adapters/registry/http-mcp-registry.js";
import type { McpRegistry, RegistryServer } from "../../src/app/ports/mcp-registry.js";
import { type McpRegistryFake, officialEntry, startMcpRegistry } from "../support/mcp-registry.js";

const registries: McpRegistryFake[] = [];
const clients: HttpMcpRegistry[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(registries.splice(0).map((registry) => registry.close()));
});

async function registry(entries = [weather()]): Promise<McpRegistryFake> {
  const started = await startMcpRegistry(entries);
  registries.push(started);
  return started;
}

function client(baseUrl: string, options: { timeoutMs?: number; maxRetries?: number } = {}): HttpMcpRegistry {
  const created = new HttpMcpRegistry({
    baseUrl,
    timeoutMs: options.timeoutMs ?? 2_000,
    maxRetries: options.maxRetries ?? 2,
    backoffMs: 10,
  });
  clients.push(created);
  return created;
}

function weather() {
  return officialEntry({
    name: "io.github.example/weather",
    title: "Weather",
    description: "Forecasts from a weather service",
    version: "1.2.0",
    repository: { url: "https://github.com/example/weather", source: "github" },
    packages: [
      {
        registryType: "npm",
        registryBaseUrl: "https://registry.npmjs.org",
        identifier: "@example/weather-mcp",
        version: "1.2.0",
        transport: { type: "stdio" },
        environmentVariables: [
          { name: "WEATHER_API_KEY", description: "API key", isRequired: true, isSecret: true },
          { name: "WEATHER_UNITS", default: "metric" },
        ],
        packageArguments: [{ type: "positional", value: "stdio" }],
      },
    ],
    remotes: [
      {
        type: "streamable-http",
        url: "https://weather.example.com/mcp",
        headers: [{ name: "X-Client", value: "airlock" }],
      },
    ],
  });
}

describe("HttpMcpRegistry (the v0 servers API over HTTP)", () => {
  it("reads servers, packages, remotes and the official metadata of the registry's documents", async () => {
    const fake = await registry();
    const [server] = await client(fake.url).search("weather");
    expect(server).toEqual<RegistryServer>({
      name: "io.github.example/weather",
      title: "Weather",
      description: "Forecasts from a weather service",
      version: "1.2.0",
      packages: [
        {
          registryType: "npm",
          identifier: "@example/weather-mcp",
          version: "1.2.0",
          transportType: "stdio",
          environmentVariables: [
            { name: "WEATHER_API_KEY", description: "API key", isRequired: true, isSecret: true },
            { name: "WEATHER_UNITS", default: "metric", isRequired: false, isSecret: false },
          ],
          packageArguments: [{ type: "positional", value: "stdio", isRequired: false }],
        },
      ],
      remotes: [
        {
          type: "streamable-http",
          url: "https://weather.example.com/mcp",
          headers: [{ name: "X-Client", value: "airlock", isRequired: false, isSecret: false }],
        },
      ],
      official: {
        status: "active",
        isLatest: true,
        publishedAt: "2026-01-15T10:30:00Z",
        updatedAt: "2026-01-15T10:30:00Z",
      },
    });
  });

  it("asks GET <base>/v0/servers for the latest versions matching the term, 100 per page", async () => {
    const fake = await registry();
    await client(fake.url).search("io.github.example/weather");
    expect(fake.requests).toEqual([
      "/v0/servers?search=io.github.example%2Fweather&version=latest&limit=100",
    ]);
  });

  it("follows metadata.nextCursor across pages", async () => {
    const many = Array.from({ length: 230 }, (_, i) =>
      officialEntry({ name: `io.github.bulk/tool-${i}`, description: "bulk", version: "1.0.0" }),
    );
    const fake = await registry(many);
    const found = await client(fake.url).search("bulk");
    expect(found).toHaveLength(230);
    expect(fake.requests).toHaveLength(3);
    expect(fake.requests[1]).toContain("cursor=io.github.bulk%2Ftool-100%3A1.0.0");
  });

  it("leaves out entries it cannot read, keeping the others", async () => {
    const fake = await registry([
      { server: { description: "an entry without a name" } } as never,
      { _meta: {} } as never,
      officialEntry({ name: "io.github.example/ok", description: "fine", version: "1.0.0" }),
    ]);
    const found = await client(fake.url).search("");
    expect(found.map((s) => s.name)).toEqual(["io.github.example/ok"]);
  });

  it("gives null official metadata to an entry the registry does not vouch for", async () => {
    const fake = await registry([{ server: { name: "com.example/plain", description: "x", version: "1" } }]);
    const [server] = await client(fake.url).search("plain");
    expect(server?.official).toBeNull();
  });

  it("retries a 5xx answer and succeeds when the registry recovers", async () => {
    const fake = await registry();
    fake.failNext(2, 503);
    const found = await client(fake.url, { maxRetries: 2 }).search("weather");
    expect(found).toHaveLength(1);
    expect(fake.requests).toHaveLength(3);
  });

  it("gives up after max_retries further attempts, naming the host and the status", async () => {
    const fake = await registry();
    fake.failNext(10, 502);
    const failure = client(fake.url, { maxRetries: 2 }).search("weather");
    await expect(failure).rejects.toThrow(
      `registry ${new URL(fake.url).host} answered HTTP 502 (after 3 attempts)`,
    );
    expect(fake.requests).toHaveLength(3);
  });

  it("does not retry a 4xx answer", async () => {
    const fake = await registry();
    const failure = client(`${fake.url}/wrong/base`, { maxRetries: 3 }).search("weather");
    await expect(failure).rejects.toThrow("answered HTTP 404");
    expect(fake.requests).toEqual(["/wrong/base/v0/servers?search=weather&version=latest&limit=100"]);
  });

  it("ends an attempt that gets no answer within the timeout, and retries it", async () => {
    const fake = await registry();
    fake.stallNext(1);
    const found = await client(fake.url, { timeoutMs: 300, maxRetries: 1 }).search("weather");
    expect(found).toHaveLength(1);
    expect(fake.requests).toHaveLength(2);
  });

  it("reports a registry that never answers as a timeout", async () => {
    const fake = await registry();
    fake.stallNext(5);
    const failure = client(fake.url, { timeoutMs: 200, maxRetries: 1 }).search("weather");
    await expect(failure).rejects.toThrow("did not answer within 200 ms (after 2 attempts)");
  });

  it("retries a refused connection and reports it without the URL's path or credentials", async () => {
    const port = await closedPort();
    const failure = client(`http://user:pw@127.0.0.1:${port}/private`, { maxRetries: 1 }).search("x");
    const error = await failure.catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe(
      `cannot reach registry 127.0.0.1:${port} (ECONNREFUSED) (after 2 attempts)`,
    );
  });

  it("refuses an answer that is not a server list", async () => {
    const fake = await registry();
    fake.answerNext({ servers: "nope", metadata: {} });
    await expect(client(fake.url).search("x")).rejects.toThrow(
      "answered a document that is not a server list",
    );
  });
});

/** A registry whose answers the test controls and counts, standing behind the cache. */
class CountingRegistry implements McpRegistry {
  calls: string[] = [];
  fail = false;

  async search(term: string): Promise<readonly RegistryServer[]> {
    this.calls.push(term);
    if (this.fail) throw new Error("registry down");
    return [
      {
        name: `io.github.x/${term}`,
        description: "",
        version: "1",
        packages: [],
        remotes: [],
        official: null,
      },
    ];
  }
}

describe("CachingMcpRegistry (hot_loading.cache)", () => {
  let now = 0;
  const cache = (inner: McpRegistry, ttlMs = 1_000, maxEntries = 2) =>
    new CachingMcpRegistry(inner, { ttlMs, maxEntries, now: () => now });

  it("answers a repeated search from the cache until its time to live ends", async () => {
    now = 0;
    const inner = new CountingRegistry();
    const cached = cache(inner);
    await cached.search("weather");
    now = 999;
    await cached.search("Weather ");
    expect(inner.calls).toEqual(["weather"]);
    now = 1_000;
    await cached.search("weather");
    expect(inner.calls).toEqual(["weather", "weather"]);
  });

  it("keeps at most max_entries searches, dropping the least recently used", async () => {
    now = 0;
    const inner = new CountingRegistry();
    const cached = cache(inner, 60_000, 2);
    await cached.search("a");
    await cached.search("b");
    await cached.search("a"); // a is now the most recently used
    await cached.search("c"); // evicts b
    expect(cached.size).toBe(2);
    await cached.search("a");
    await cached.search("b");
    expect(inner.calls).toEqual(["a", "b", "c", "b"]);
  });

  it("does not keep failures", async () => {
    const inner = new CountingRegistry();
    const cached = cache(inner);
    inner.fail = true;
    await expect(cached.search("w")).rejects.toThrow("registry down");
    inner.fail = false;
    await expect(cached.search("w")).resolves.toHaveLength(1);
    expect(inner.calls).toEqual(["w", "w"]);
  });

  it("shares one request between concurrent searches of one term", async () => {
    const inner = new CountingRegistry();
    const cached = cache(inner);
    await Promise.all([cached.search("w"), cached.search("W")]);
    expect(inner.calls).toEqual(["w"]);
  });

  it("asks every time with a time to live of 0", async () => {
    const inner = new CountingRegistry();
    const cached = cache(inner, 0);
    await cached.search("w");
    await cached.search("w");
    expect(inner.calls).toEqual(["w", "w"]);
  });

  it("caches the HTTP registry's answers: the second lookup sends no request", async () => {
    const fake = await registry();
    const cached = cache(client(fake.url), 60_000, 10);
    await cached.search("weather");
    await cached.search("weather");
    expect(fake.requests).toHaveLength(1);
  });
});

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
