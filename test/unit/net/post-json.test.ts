import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { postJson } from "../../../src/adapters/net/post-json.js";

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A loopback server answering every request with `answer`, recording what it was sent. */
async function serve(answer: (path: string, res: import("node:http").ServerResponse) => void) {
  const received: { path: string; body: string; type: string | undefined; auth: string | undefined }[] = [];
  const server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    received.push({
      path: req.url ?? "",
      body,
      type: req.headers["content-type"],
      auth: req.headers.authorization,
    });
    answer(req.url ?? "", res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

describe("postJson", () => {
  it("posts the body as JSON with the given headers and answers the status", async () => {
    const { url, received } = await serve((_path, res) => res.writeHead(503).end("busy"));
    const outcome = await postJson(`${url}/in`, '{"a":1}', {
      headers: { authorization: "Basic x" },
      timeoutMs: 5_000,
    });
    expect(outcome).toEqual({ status: 503 });
    expect(received).toEqual([{ path: "/in", body: '{"a":1}', type: "application/json", auth: "Basic x" }]);
  });

  it("does not follow a redirect: the body goes nowhere else", async () => {
    const { url, received } = await serve((path, res) =>
      path === "/in" ? res.writeHead(307, { location: "/elsewhere" }).end() : res.writeHead(200).end(),
    );
    const outcome = await postJson(`${url}/in`, "{}", { headers: {}, timeoutMs: 5_000 });
    expect("failure" in outcome).toBe(true);
    expect(received.map((request) => request.path)).toEqual(["/in"]);
  });

  it("names a refused connection by its code and a silent peer as a timeout, never the URL", async () => {
    const { url } = await serve(() => undefined);
    const closed = await serve((_path, res) => res.end());
    const closedUrl = closed.url;
    await new Promise((resolve) => {
      const server = servers.pop() as Server;
      server.close(resolve);
    });
    expect(await postJson(`${closedUrl}/in`, "{}", { headers: {}, timeoutMs: 5_000 })).toEqual({
      failure: "ECONNREFUSED",
    });
    expect(await postJson(`${url}/in`, "{}", { headers: {}, timeoutMs: 200 })).toEqual({
      failure: "timeout",
    });
  });
});
