import { createConnection, createServer, type Server, type Socket } from "node:net";

/**
 * A TCP proxy on loopback in front of a real server (PostgreSQL, Redis): what a client sees when
 * the server restarts or the network drops, without touching the shared server. `drop()` resets
 * every open connection and refuses new ones (the port is closed, so a connect gets ECONNREFUSED,
 * as from a server that is down) until `accept()` listens again on the same port.
 */
export class TcpProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  /** Connections accepted since the proxy started, across drops. */
  accepted = 0;

  private constructor(
    private readonly target: { host: string; port: number },
    private listenPort: number,
  ) {}

  /** Listens on an ephemeral loopback port and forwards every connection to `target`. */
  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const proxy = new TcpProxy(target, 0);
    await proxy.accept();
    return proxy;
  }

  get port(): number {
    return this.listenPort;
  }

  /** Whether new connections are accepted now. */
  get accepting(): boolean {
    return this.server !== null;
  }

  /** `url` with its host and port replaced by the proxy's (a database or Redis URL). */
  rewrite(url: string): string {
    const parsed = new URL(url);
    parsed.hostname = "127.0.0.1";
    parsed.port = String(this.listenPort);
    return parsed.toString();
  }

  /** Resets every open connection (both sides) and refuses new ones until `accept()`. */
  async drop(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const socket of this.sockets) socket.resetAndDestroy();
    this.sockets.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Accepts connections again, on the same port. */
  async accept(): Promise<void> {
    if (this.server) return;
    const server = createServer((client) => this.forward(client));
    // The port was ours a moment ago; on a busy machine another process may hold it briefly.
    for (let attempt = 1; ; attempt++) {
      try {
        await new Promise<void>((resolve, reject) => {
          server.once("error", reject);
          server.listen(this.listenPort, "127.0.0.1", () => {
            server.off("error", reject);
            resolve();
          });
        });
        break;
      } catch (error) {
        if (attempt >= 20 || (error as NodeJS.ErrnoException).code !== "EADDRINUSE") throw error;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    const address = server.address();
    if (address && typeof address === "object") this.listenPort = address.port;
    this.server = server;
  }

  /** Drops for `ms` milliseconds, then accepts again. */
  async dropFor(ms: number): Promise<void> {
    await this.drop();
    await new Promise((resolve) => setTimeout(resolve, ms));
    await this.accept();
  }

  async close(): Promise<void> {
    await this.drop();
  }

  private forward(client: Socket): void {
    this.accepted += 1;
    const upstream = createConnection(this.target);
    this.sockets.add(client);
    this.sockets.add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
    };
    // Either side failing or closing ends the pair, as a broken route would.
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
    client.pipe(upstream);
    upstream.pipe(client);
  }
}
