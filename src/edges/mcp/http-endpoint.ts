import { randomUUID } from "node:crypto";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { RequestContext } from "../../app/context.js";
import type { AppServices } from "../../app/services.js";
import { createOriginCheck, isLoopbackHost, type OriginCheck } from "../http/origin-policy.js";
import {
  authenticateRequest,
  type Caller,
  callerOf,
  type HttpAuthentication,
  sendAuthenticationFailure,
} from "../http/plugins/authentication.js";
import { MALFORMED_BODY } from "../http/plugins/json-body.js";
import { createManagementServer } from "./management-server.js";

export interface McpEndpointOptions {
  /** Browser origins besides loopback ones (`http.allowed_origins`); requests without Origin pass. */
  allowedOrigins?: readonly string[];
  /**
   * True (default) when the gateway listens on a loopback address: a Host that does not name the
   * loopback interface is refused. False when it listens on a routable address, where the names
   * clients use are not known here.
   */
  loopbackOnly?: boolean;
  /**
   * The MCP server of a new session (its transport session id given), answering as the caller
   * `contextOf` describes. The management server of the egress topology when absent.
   */
  sessionServer?: (key: string, contextOf: (signal: AbortSignal) => RequestContext) => Server;
  /**
   * Whether GET opens the server-to-client SSE stream (front door: `notifications/tools/list_changed`);
   * otherwise GET answers 405 (egress sends no server-initiated messages).
   */
  serverStream?: boolean;
  /** With authentication on: every request is authenticated, and a session stays its principal's. */
  authentication?: HttpAuthentication;
}

/** MCP SDK defaults the gateway keeps (spec 2 §8): idle sessions expire after 30 minutes, 10,000 at most. */
const SESSION_IDLE_MS = 30 * 60 * 1000;
const MAX_SESSIONS = 10_000;
/** How often idle sessions are looked for. */
const SWEEP_INTERVAL_MS = 60 * 1000;

interface Session {
  server: Server;
  transport: StreamableHTTPServerTransport;
  lastSeen: number;
  /**
   * Who calls: set by the request that opened the session, renewed by every later one (a fresh JWT),
   * which must authenticate as the same principal.
   */
  identity: { caller: Caller };
}

/**
 * The MCP endpoint at `/mcp` over streamable HTTP: POST carries requests, DELETE ends a session,
 * GET opens the server-to-client stream in the front-door topology and answers 405 in egress, which
 * sends no notifications. Session ids are random UUIDs (a secure random source, visible ASCII).
 */
export class McpHttpEndpoint {
  private readonly sessions = new Map<string, Session>();
  private readonly sweeper: NodeJS.Timeout;

  private readonly originAllowed: OriginCheck;

  constructor(
    private readonly services: AppServices,
    private readonly options: McpEndpointOptions = {},
  ) {
    this.originAllowed = createOriginCheck(options.allowedOrigins ?? []);
    this.sweeper = setInterval(() => this.sweepIdle(), SWEEP_INTERVAL_MS);
    this.sweeper.unref();
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  mount(app: FastifyInstance, path = "/mcp"): void {
    // DNS-rebinding protection comes first, for every method (spec: a foreign Host or Origin is 403).
    app.addHook("onRequest", async (request, reply) => {
      if (request.url.split("?")[0] !== path) return;
      const refusal = this.foreign(request);
      if (refusal) return reply.status(403).send(rpcError(-32000, refusal));
    });
    app.post(path, (request, reply) => this.handlePost(request, reply));
    app.delete(path, (request, reply) => this.handleExisting(request, reply));
    if (this.options.serverStream) {
      app.get(path, (request, reply) => this.handleExisting(request, reply));
      return;
    }
    app.get(path, async (_request, reply) =>
      reply
        .status(405)
        .header("Allow", "POST, DELETE")
        .send(rpcError(-32000, "Method not allowed: this endpoint sends no server-initiated messages")),
    );
  }

  /** Why a request looks like a DNS-rebinding attempt, or null. */
  private foreign(request: FastifyRequest): string | null {
    const origin = request.headers.origin;
    if (!this.originAllowed(typeof origin === "string" ? origin : undefined))
      return `Forbidden: Origin ${origin}`;
    if (this.options.loopbackOnly !== false && !isLoopbackHost(request.headers.host)) {
      return `Forbidden: Host ${request.headers.host ?? "(none)"}`;
    }
    return null;
  }

  private async handlePost(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (request.body === MALFORMED_BODY) return reply.status(400).send(rpcError(-32700, "Parse error"));
    if (request.headers["mcp-session-id"]) return this.handleExisting(request, reply);
    const caller = await this.authenticate(request, reply);
    if (!caller) return;
    if (!isInitializeRequest(request.body)) {
      return reply.status(400).send(rpcError(-32000, "Bad Request: No valid session ID provided"));
    }
    if (this.sessions.size >= MAX_SESSIONS) this.evictOldest();
    const key = randomUUID();
    const identity = { caller };
    const contextOf = (signal: AbortSignal): RequestContext => ({
      principal: identity.caller.principal,
      authenticated: identity.caller.authenticated,
      channel: "mcp-http",
      clientAddress: identity.caller.clientAddress,
      // Suspension is per MCP session (`/sessions/{session_id}/suspend`): the gates read it here.
      sessionId: key,
      signal,
    });
    const server = this.options.sessionServer
      ? this.options.sessionServer(key, contextOf)
      : createManagementServer(this.services, contextOf);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => key,
      onsessioninitialized: (id) => {
        this.sessions.set(id, { server, transport, lastSeen: Date.now(), identity });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    reply.hijack();
    await transport.handleRequest(request.raw, reply.raw, request.body);
  }

  private async handleExisting(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const caller = await this.authenticate(request, reply);
    if (!caller) return;
    const id = request.headers["mcp-session-id"];
    const session = typeof id === "string" ? this.sessions.get(id) : undefined;
    if (!session) return reply.status(404).send(rpcError(-32001, "Session not found"));
    // Another principal must not learn that the session exists, let alone use it.
    if (caller.principal.id !== session.identity.caller.principal.id) {
      return reply.status(404).send(rpcError(-32001, "Session not found"));
    }
    session.identity.caller = caller;
    session.lastSeen = Date.now();
    reply.hijack();
    await session.transport.handleRequest(request.raw, reply.raw, request.body);
  }

  /** The caller of a request, or null once the refusal was sent (401, or 429 while locked out). */
  private async authenticate(request: FastifyRequest, reply: FastifyReply): Promise<Caller | null> {
    const auth = this.options.authentication;
    if (!auth) return callerOf(request);
    const outcome = await authenticateRequest(request, auth);
    if (!outcome.ok) {
      sendAuthenticationFailure(reply, outcome, auth);
      return null;
    }
    return {
      principal: outcome.principal,
      authenticated: outcome.authenticated,
      clientAddress: outcome.clientAddress,
    };
  }

  private sweepIdle(): void {
    const cutoff = Date.now() - SESSION_IDLE_MS;
    for (const [id, session] of this.sessions) {
      if (session.lastSeen < cutoff) this.closeSession(id, session);
    }
  }

  private evictOldest(): void {
    let oldest: [string, Session] | undefined;
    for (const entry of this.sessions) if (!oldest || entry[1].lastSeen < oldest[1].lastSeen) oldest = entry;
    if (oldest) this.closeSession(...oldest);
  }

  private closeSession(id: string, session: Session): void {
    this.sessions.delete(id);
    void session.transport.close().catch(() => undefined);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    const all = [...this.sessions.entries()];
    this.sessions.clear();
    await Promise.all(all.map(([, s]) => s.transport.close().catch(() => undefined)));
  }
}

function rpcError(code: number, message: string) {
  return { jsonrpc: "2.0", error: { code, message }, id: null };
}
