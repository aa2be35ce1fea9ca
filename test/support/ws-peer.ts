import { createRequire } from "node:module";

/** The part of the `ws` client used here; `ws` ships no type declarations. */
interface WsClient {
  send(data: string): void;
  close(): void;
  on(event: "message", listener: (data: Buffer, isBinary: boolean) => void): unknown;
  on(event: "close", listener: (code: number, reason: Buffer) => void): unknown;
  on(event: "open", listener: () => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
}
type WsClientConstructor = new (
  url: string,
  options?: { headers?: Record<string, string>; origin?: string },
) => WsClient;
const WebSocket = createRequire(import.meta.url)("ws") as WsClientConstructor;

export type Frame = Record<string, unknown>;

/** A real `ws` client that records every frame and how the connection ended. */
export class Peer {
  readonly frames: Frame[] = [];
  readonly opened: Promise<void>;
  readonly closed: Promise<{ code: number; reason: string }>;
  private readonly ws: WsClient;

  constructor(url: string, options: { headers?: Record<string, string>; origin?: string } = {}) {
    this.ws = new WebSocket(url, options);
    this.ws.on("message", (data) => this.frames.push(JSON.parse(data.toString("utf8")) as Frame));
    this.ws.on("error", () => {});
    this.opened = new Promise((resolve) => this.ws.on("open", resolve));
    this.closed = new Promise((resolve) =>
      this.ws.on("close", (code, reason) => resolve({ code, reason: reason.toString("utf8") })),
    );
  }

  send(frame: unknown): void {
    this.ws.send(typeof frame === "string" ? frame : JSON.stringify(frame));
  }

  close(): void {
    this.ws.close();
  }

  events(): Frame[] {
    return this.frames.filter((frame) => "event_type" in frame);
  }

  /** The first frame from index `from` on that satisfies `predicate`. */
  async next(predicate: (frame: Frame) => boolean, from = 0, timeoutMs = 5_000): Promise<Frame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.frames.slice(from).find(predicate);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no matching frame; got ${JSON.stringify(this.frames)}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  async subscribe(filter: { event_types?: string[]; mcp_server_ids?: string[] }): Promise<Frame> {
    await this.opened;
    const from = this.frames.length;
    this.send({ type: "subscribe", ...filter });
    return this.next((frame) => frame.type === "subscribed", from);
  }
}
