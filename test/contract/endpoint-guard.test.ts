import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import {
  DnsEndpointGuard,
  type ResolvedAddress,
  type Resolver,
} from "../../src/adapters/net/dns-endpoint-guard.js";
import { UndiciHttpClientFactory } from "../../src/adapters/net/undici-http-client-factory.js";
import { RemoteUpstreamFactory } from "../../src/adapters/upstream/remote/remote-upstream-factory.js";
import type { HttpClient } from "../../src/app/ports/endpoint-guard.js";
import { RequestRejected } from "../../src/domain/errors.js";
import type { ServerSpec } from "../../src/domain/server/server-spec.js";

const PUBLIC: ResolvedAddress = { address: "93.184.216.34", family: 4 };
const LOOPBACK: ResolvedAddress = { address: "127.0.0.1", family: 4 };
const OTHER_LOOPBACK: ResolvedAddress = { address: "127.0.0.2", family: 4 };

/** A resolver with a fixed table; unknown names fail as the system resolver does. */
function table(entries: Record<string, ResolvedAddress[]>): Resolver {
  return async (hostname) => {
    const answer = entries[hostname];
    if (answer !== undefined) return answer;
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
  };
}

async function rejection(promise: Promise<unknown>): Promise<RequestRejected> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RequestRejected);
  expect(error).toMatchObject({ status: 400, code: "ssrf_blocked" });
  return error as RequestRejected;
}

// ---------------------------------------------------------------------------------------------
// Plain HTTP servers on loopback addresses, recording what reached them

interface Recorder {
  readonly server: Server;
  readonly port: number;
  readonly hits: string[];
}

const servers: Server[] = [];
const clients: HttpClient[] = [];

async function serve(
  host: string,
  respond: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end("ok"),
): Promise<Recorder> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    respond(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  servers.push(server);
  return { server, port: (server.address() as { port: number }).port, hits };
}

async function client(guard: DnsEndpointGuard, guarded = true): Promise<HttpClient> {
  const created = await new UndiciHttpClientFactory({ guard }).create({
    guarded,
    connectTimeoutMs: 2_000,
    tls: { verify: true },
  });
  clients.push(created);
  return created;
}

afterEach(async () => {
  await Promise.all(clients.splice(0).map((created) => created.close()));
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    ),
  );
});

// ---------------------------------------------------------------------------------------------

describe("DnsEndpointGuard.assertAllowed", () => {
  const guard = new DnsEndpointGuard({
    resolve: table({
      "public.example": [PUBLIC],
      localhost: [LOOPBACK, { address: "::1", family: 6 }],
      "metadata.example": [{ address: "169.254.169.254", family: 4 }],
      "mixed.example": [PUBLIC, { address: "192.168.1.10", family: 4 }],
      "mapped.example": [{ address: "::ffff:127.0.0.1", family: 6 }],
      "nat64.example": [{ address: "64:ff9b::a00:1", family: 6 }],
      "v6.example": [{ address: "2606:4700:4700::1111", family: 6 }],
      "empty.example": [],
      "internal.corp": [{ address: "10.20.30.40", family: 4 }],
    }),
  });

  it.each([
    "http://public.example/mcp",
    "https://public.example:8443/mcp?x=1",
    "http://93.184.216.34/",
    "http://[2606:4700:4700::1111]:8080/mcp",
    "http://v6.example/",
  ])("accepts %s", async (url) => {
    await expect(guard.assertAllowed(url)).resolves.toBeUndefined();
  });

  it.each([
    ["http://127.0.0.1/", "endpoint host 127.0.0.1 is a loopback address (127.0.0.0/8)"],
    ["http://2130706433/", "endpoint host 127.0.0.1 is a loopback address (127.0.0.0/8)"],
    ["http://0177.0.0.1/", "endpoint host 127.0.0.1 is a loopback address (127.0.0.0/8)"],
    ["http://0x7f.1/", "endpoint host 127.0.0.1 is a loopback address (127.0.0.0/8)"],
    ["http://127.1:8080/", "endpoint host 127.0.0.1 is a loopback address (127.0.0.0/8)"],
    ["http://10.1/", "endpoint host 10.0.0.1 is a private address (10.0.0.0/8)"],
    [
      "http://0xa9.0xfe.0xa9.0xfe/latest/meta-data",
      "endpoint host 169.254.169.254 is a link-local address (169.254.0.0/16)",
    ],
    ["http://[::1]/", "endpoint host [::1] is a loopback address (::1/128)"],
    ["http://[::]/", "endpoint host [::] is the unspecified address (::/128)"],
    ["http://0.0.0.0:8080/", "endpoint host 0.0.0.0 is the unspecified address (0.0.0.0/8)"],
    [
      "http://[::ffff:127.0.0.1]/",
      "endpoint host [::ffff:7f00:1] is a loopback address (127.0.0.0/8) inside an IPv4-mapped IPv6 address",
    ],
    [
      "http://[64:ff9b::169.254.169.254]/",
      "endpoint host [64:ff9b::a9fe:a9fe] is a link-local address (169.254.0.0/16) inside a NAT64 address",
    ],
    ["http://[fd00::1]/", "endpoint host [fd00::1] is a unique local IPv6 address (fc00::/7)"],
    ["http://[fe80::1]/", "endpoint host [fe80::1] is a link-local address (fe80::/10)"],
    ["http://100.64.1.1/", "endpoint host 100.64.1.1 is a carrier-grade NAT address (100.64.0.0/10)"],
    ["http://198.18.0.1/", "endpoint host 198.18.0.1 is a benchmarking address (198.18.0.0/15)"],
    ["http://224.0.0.1/", "endpoint host 224.0.0.1 is a multicast address (224.0.0.0/4)"],
    [
      "http://255.255.255.255/",
      "endpoint host 255.255.255.255 is the broadcast address (255.255.255.255/32)",
    ],
    ["http://localhost:3000/", "endpoint host localhost resolves to a loopback address (127.0.0.0/8)"],
    [
      "http://metadata.example/",
      "endpoint host metadata.example resolves to a link-local address (169.254.0.0/16)",
    ],
    ["http://mixed.example/", "endpoint host mixed.example resolves to a private address (192.168.0.0/16)"],
    [
      "http://mapped.example/",
      "endpoint host mapped.example resolves to a loopback address (127.0.0.0/8) inside an IPv4-mapped IPv6 address",
    ],
    [
      "http://nat64.example/",
      "endpoint host nat64.example resolves to a private address (10.0.0.0/8) inside a NAT64 address",
    ],
    ["http://nowhere.example/", "endpoint host nowhere.example does not resolve"],
    ["http://empty.example/", "endpoint host empty.example does not resolve"],
    ["ftp://public.example/", "endpoint scheme must be http or https, not ftp"],
    ["file:///etc/passwd", "endpoint scheme must be http or https, not file"],
    ["gopher://public.example/", "endpoint scheme must be http or https, not gopher"],
    [
      "http://user:secret@public.example/",
      "endpoint must not carry credentials in the URL; use the auth block",
    ],
    [
      "http://public.example@127.0.0.1/",
      "endpoint must not carry credentials in the URL; use the auth block",
    ],
    ["not a url", "endpoint is not a valid absolute URL"],
    ["/relative/path", "endpoint is not a valid absolute URL"],
  ])("refuses %s", async (url, detail) => {
    const refusal = await rejection(guard.assertAllowed(url));
    expect(refusal.detail).toBe(detail);
    expect(refusal.detail).not.toContain("secret");
  });

  it("accepts addresses inside ssrf.trusted_networks", async () => {
    const trusting = new DnsEndpointGuard({
      trustedNetworks: ["10.20.0.0/16", "fd00::/8"],
      resolve: table({ "internal.corp": [{ address: "10.20.30.40", family: 4 }] }),
    });
    await expect(trusting.assertAllowed("http://internal.corp/mcp")).resolves.toBeUndefined();
    await expect(trusting.assertAllowed("http://10.20.1.1/")).resolves.toBeUndefined();
    await expect(trusting.assertAllowed("http://[fd00::5]/")).resolves.toBeUndefined();
    await expect(trusting.assertAllowed("http://[::ffff:10.20.1.1]/")).resolves.toBeUndefined();
    await rejection(trusting.assertAllowed("http://10.21.0.1/"));
    await rejection(trusting.assertAllowed("http://127.0.0.1/"));
  });

  it("takes new trusted networks on configuration reload", async () => {
    const reloadable = new DnsEndpointGuard();
    await rejection(reloadable.assertAllowed("http://10.9.8.7/"));
    reloadable.setTrustedNetworks(["10.9.0.0/16"]);
    await expect(reloadable.assertAllowed("http://10.9.8.7/")).resolves.toBeUndefined();
    reloadable.setTrustedNetworks([]);
    await rejection(reloadable.assertAllowed("http://10.9.8.7/"));
  });

  it("refuses a name that does not resolve in time", async () => {
    const slow = new DnsEndpointGuard({ resolve: () => new Promise(() => {}), resolveTimeoutMs: 50 });
    const refusal = await rejection(slow.assertAllowed("http://slow.example/"));
    expect(refusal.detail).toBe("endpoint host slow.example did not resolve within 50 ms");
  });

  it("names the resolver's error code when resolution fails otherwise", async () => {
    const failing = new DnsEndpointGuard({
      resolve: async () => Promise.reject(Object.assign(new Error("temporary"), { code: "EAI_AGAIN" })),
    });
    const refusal = await rejection(failing.assertAllowed("http://flaky.example/"));
    expect(refusal.detail).toBe("endpoint host flaky.example could not be resolved (EAI_AGAIN)");
  });

  it("resolves localhost with the system resolver and refuses it", async () => {
    const system = new DnsEndpointGuard();
    const refusal = await rejection(system.assertAllowed("http://localhost:1/"));
    expect(refusal.detail).toMatch(/^endpoint host localhost resolves to a loopback address/);
  });
});

describe("guarded HTTP clients", () => {
  it("refuse a connection when the name resolves into a refused range at connect time (DNS rebinding)", async () => {
    const target = await serve("127.0.0.1");
    let calls = 0;
    // Public when the endpoint is registered, loopback when the connection is made.
    const rebinding: Resolver = async () => (++calls === 1 ? [PUBLIC] : [LOOPBACK]);
    const guard = new DnsEndpointGuard({ resolve: rebinding });
    const url = `http://rebind.example:${target.port}/mcp`;
    await expect(guard.assertAllowed(url)).resolves.toBeUndefined();
    const http = await client(guard);
    const refusal = await rejection(http.fetch(url));
    expect(refusal.detail).toBe("endpoint host rebind.example resolves to a loopback address (127.0.0.0/8)");
    expect(calls).toBe(2);
    expect(target.hits).toEqual([]);
  });

  it("resolve the name again for every new connection", async () => {
    const target = await serve("127.0.0.1", (_req, res) =>
      res.writeHead(200, { connection: "close" }).end("ok"),
    );
    let answer = LOOPBACK;
    let calls = 0;
    const guard = new DnsEndpointGuard({
      trustedNetworks: ["127.0.0.1/32"],
      resolve: async () => {
        calls += 1;
        return [answer];
      },
    });
    const http = await client(guard);
    const url = `http://flip.example:${target.port}/`;
    expect(await (await http.fetch(url)).text()).toBe("ok");
    expect(await (await http.fetch(url)).text()).toBe("ok");
    expect(calls).toBe(2);
    answer = OTHER_LOOPBACK;
    const refusal = await rejection(http.fetch(url));
    expect(refusal.detail).toBe("endpoint host flip.example resolves to a loopback address (127.0.0.0/8)");
    expect(target.hits).toHaveLength(2);
  });

  it("refuse address literals in every encoding without connecting", async () => {
    const target = await serve("127.0.0.1");
    const http = await client(new DnsEndpointGuard());
    for (const host of [
      "127.0.0.1",
      "2130706433",
      "0x7f.1",
      "127.1",
      "[::ffff:127.0.0.1]",
      "[::ffff:7f00:1]",
    ]) {
      await rejection(http.fetch(`http://${host}:${target.port}/`));
    }
    await rejection(http.fetch(`ftp://public.example:${target.port}/`));
    expect(target.hits).toEqual([]);
  });

  it("do not follow a redirect, and refuse the refused target when asked for it", async () => {
    const inside = await serve("127.0.0.2");
    const entry = await serve("127.0.0.1", (_req, res) =>
      res.writeHead(302, { location: `http://127.0.0.2:${inside.port}/secret` }).end(),
    );
    const guard = new DnsEndpointGuard({
      trustedNetworks: ["127.0.0.1/32"],
      resolve: table({ "entry.example": [LOOPBACK], "inside.example": [OTHER_LOOPBACK] }),
    });
    const http = await client(guard);
    const response = await http.fetch(`http://entry.example:${entry.port}/`, { redirect: "follow" });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe(`http://127.0.0.2:${inside.port}/secret`);
    await response.body?.cancel();
    await rejection(http.fetch(`http://127.0.0.2:${inside.port}/secret`));
    await rejection(http.fetch(`http://inside.example:${inside.port}/secret`));
    expect(entry.hits).toEqual(["GET /"]);
    expect(inside.hits).toEqual([]);
  });

  it("leave unguarded clients (configured endpoints) free to reach loopback", async () => {
    const target = await serve("127.0.0.1");
    const http = await client(new DnsEndpointGuard(), false);
    expect(await (await http.fetch(`http://127.0.0.1:${target.port}/`)).text()).toBe("ok");
  });
});

describe("remote upstreams registered through REST", () => {
  function remoteSpec(endpoint: string): ServerSpec {
    return {
      id: "registered",
      mode: "remote",
      endpoint,
      env: {},
      idle_ttl_s: 300,
      health_check_interval_s: 60,
      max_consecutive_failures: 3,
      options: {},
      source: "api",
    };
  }

  function remoteFactory(guard: DnsEndpointGuard): RemoteUpstreamFactory {
    return new RemoteUpstreamFactory({ guard, http: new UndiciHttpClientFactory({ guard }) });
  }

  const logs = { append: () => {} };

  it("are refused at connect time when the name now resolves to loopback, though registration passed", async () => {
    const target = await serve("127.0.0.1");
    let calls = 0;
    // Public for the registration check and the check before connecting; loopback at the TCP
    // connect itself: only the connect-time lookup can catch this one.
    const guard = new DnsEndpointGuard({ resolve: async () => (++calls <= 2 ? [PUBLIC] : [LOOPBACK]) });
    const endpoint = `http://rebind.example:${target.port}/mcp`;
    await guard.assertAllowed(endpoint);
    const error = await remoteFactory(guard)
      .connect(remoteSpec(endpoint), logs, { timeoutMs: 5_000 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestRejected);
    expect((error as RequestRejected).detail).toBe(
      "endpoint host rebind.example resolves to a loopback address (127.0.0.0/8)",
    );
    expect(calls).toBeGreaterThanOrEqual(3);
    expect(target.hits).toEqual([]);
  });

  it("do not follow a redirect into a refused range", async () => {
    const inside = await serve("127.0.0.2");
    const entry = await serve("127.0.0.1", (_req, res) =>
      res.writeHead(307, { location: `http://127.0.0.2:${inside.port}/mcp` }).end(),
    );
    const guard = new DnsEndpointGuard({
      trustedNetworks: ["127.0.0.1/32"],
      resolve: table({ "entry.example": [LOOPBACK] }),
    });
    const error = (await remoteFactory(guard)
      .connect(remoteSpec(`http://entry.example:${entry.port}/mcp`), logs, { timeoutMs: 5_000 })
      .catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(
      /HTTP 307 \(a redirect: only redirects within the endpoint's origin are followed\)/,
    );
    expect(entry.hits.length).toBeGreaterThan(0);
    expect(inside.hits).toEqual([]);
  });
});
