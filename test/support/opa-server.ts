import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One request the fake engine received. */
export interface OpaRequest {
  method: string;
  path: string;
  contentType: string | undefined;
  authorization: string | undefined;
  body: unknown;
}

/** How the fake engine answers the next requests. */
export type OpaBehaviour =
  /** `{"result": <value>}` with status 200. */
  | { kind: "result"; value: unknown }
  /** Any status and raw body. */
  | { kind: "raw"; status: number; body: string; headers?: Record<string, string> }
  /** Answers `{"result": true}` only after this many milliseconds. */
  | { kind: "slow"; delayMs: number }
  /** Decides from the input document, as a real policy would. */
  | { kind: "policy"; allow: (input: Record<string, unknown>) => boolean };

export interface OpaServer {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  requests: OpaRequest[];
  behave(behaviour: OpaBehaviour): void;
  close(): Promise<void>;
}

/**
 * An OPA-compatible decision server on loopback for tests: `POST /v1/data/<path>` with
 * `{"input": ...}` answers `{"result": ...}` as told by `behave`.
 */
export async function startOpaServer(
  initial: OpaBehaviour = { kind: "result", value: true },
): Promise<OpaServer> {
  let behaviour = initial;
  const requests: OpaRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // Kept as text: a test may assert the engine received something that is not JSON.
    }
    requests.push({
      method: request.method ?? "",
      path: request.url ?? "",
      contentType: request.headers["content-type"],
      authorization: request.headers.authorization,
      body,
    });
    const json = (status: number, value: unknown) => {
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(value));
    };
    const current = behaviour;
    switch (current.kind) {
      case "result":
        return json(200, { result: current.value });
      case "raw":
        response.writeHead(current.status, current.headers ?? { "content-type": "application/json" });
        return response.end(current.body);
      case "slow": {
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (!response.destroyed) json(200, { result: true });
        }, current.delayMs);
        timers.add(timer);
        return;
      }
      case "policy": {
        const input = (body as { input?: Record<string, unknown> } | null)?.input ?? {};
        return json(200, { result: current.allow(input) });
      }
    }
  };

  const server = createServer((request, response) => {
    handle(request, response).catch(() => response.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    behave(next) {
      behaviour = next;
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
