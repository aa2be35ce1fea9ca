import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TrustedProxies } from "../../../src/edges/http/client-address.js";

/** A fastify application built as the gateway's is: `trustProxy` bound to the trusted proxies. */
async function appTrusting(entries: string[]): Promise<FastifyInstance> {
  const proxies = new TrustedProxies(entries);
  const app = Fastify({ trustProxy: proxies.trustProxy });
  app.get("/who", async (request) => ({
    client: proxies.clientAddress(request),
    proxy: proxies.proxyOf(request) ?? null,
  }));
  await app.ready();
  return app;
}

async function who(app: FastifyInstance, remoteAddress: string, forwarded?: string) {
  const response = await app.inject({
    method: "GET",
    url: "/who",
    remoteAddress,
    ...(forwarded !== undefined && { headers: { "x-forwarded-for": forwarded } }),
  });
  return response.json() as { client: string; proxy: string | null };
}

describe("TrustedProxies over fastify's trustProxy", () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await appTrusting(["10.0.0.0/8", "192.0.2.7", "fd00::/8"]);
  });
  afterAll(() => app.close());

  it("takes the peer when it is not a trusted proxy, whatever the header names", async () => {
    expect(await who(app, "203.0.113.9", "198.51.100.1")).toEqual({ client: "203.0.113.9", proxy: null });
  });

  it("takes the nearest untrusted hop, read from the right, past every trusted proxy", async () => {
    expect(await who(app, "10.1.2.3", "198.51.100.1, 198.51.100.2, 192.0.2.7, 10.9.9.9")).toEqual({
      client: "198.51.100.2",
      proxy: "10.1.2.3",
    });
  });

  it("takes the peer when a trusted proxy sends no header", async () => {
    expect(await who(app, "192.0.2.7")).toEqual({ client: "192.0.2.7", proxy: "192.0.2.7" });
  });

  it("stops at the last trusted hop when the next entry is not an address", async () => {
    expect(await who(app, "10.1.2.3", "198.51.100.1, not-an-address, 10.4.4.4")).toEqual({
      client: "10.4.4.4",
      proxy: "10.1.2.3",
    });
  });

  it("reads an IPv4-mapped peer as IPv4, and IPv6 networks", async () => {
    expect((await who(app, "::ffff:10.0.0.5", "198.51.100.3")).client).toBe("198.51.100.3");
    expect((await who(app, "fd12::1", "2001:db8::5")).client).toBe("2001:db8::5");
  });

  it("reads no header at all with no trusted proxies", async () => {
    const none = await appTrusting([]);
    expect(await who(none, "127.0.0.1", "198.51.100.1")).toEqual({ client: "127.0.0.1", proxy: null });
    await none.close();
  });
});
