import { randomUUID } from "node:crypto";
import type { Server } from "@modelcontextprotocol/server";
import {
  type InitializeRequest,
  type JSONRPCRequest,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/server";
import type {
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onRequestHookHandler,
  preParsingHookHandler,
} from "fastify";
import type { Principal, RequestContext } from "../../app/context.js";
import type { McpEndpointServices } from "../../app/edge-services.js";
import type { Logger } from "../../app/ports/logger.js";
import type { McpSessionRecord, McpSessionRepository } from "../../app/ports/mcp-session-repository.js";
import { GatewayError } from "../../domain/errors.js";
import { jsonDepthRefusal } from "../../domain/limits/json-depth.js";
import { andThen, type MaybePromise } from "../../domain/maybe-promise.js";
import { TASKS_EXTENSION_METHODS } from "../../domain/stateless-revision.js";
import { createBrowserGuard } from "../http/origin-policy.js";
import {
  authenticateRequest,
  type Caller,
  callerOf,
  type HttpAuthentication,
  sendAuthenticationFailure,
} from "../http/plugins/authentication.js";
import { requestFields } from "../http/plugins/errors.js";
import { BodyTooDeep, MALFORMED_BODY } from "../http/plugins/json-body.js";
import { serveDirect } from "./direct-dispatch.js";
import { statelessRefusal, transportRefusal } from "./error-mapping.js";
import type { StatelessInput } from "./front-door/input-rounds.js";
import type { FrontDoorRequestHandler } from "./front-door/server.js";
import { isInitialize, readableRequestId } from "./jsonrpc-message.js";
import { createManagementServer, SERVER_NAME } from "./management-server.js";
import { type ServerStreamLimits, ServerStreams, type StreamRecheck } from "./server-streams.js";
import { type SessionCapLimits, SessionCaps, type SessionSlot } from "./session-caps.js";
import { adoptClient, replayInitialization } from "./session-restore.js";
import { SessionTransport } from "./session-transport.js";
import {
  discoverResult,
  listening,
  listenRequested,
  readStatelessPost,
  STATELESS_CLIENT,
  type StatelessRequest,
  statelessToolName,
  statelessWriting,
} from "./stateless-request.js";

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
   * The server of one stateless request other than `subscriptions/listen`, answering as
   * `contextOf` describes (see `FrontDoor.statelessServer`); the management server of the egress
   * topology when absent.
   */
  statelessServer?: (
    key: string,
    contextOf: (signal: AbortSignal) => RequestContext,
    input: StatelessInput,
  ) => Server;
  /**
   * The handler of one stateless `tools/call`, served without a server of its own (front door);
   * absent, the call is served by `statelessServer`'s server as any other request.
   */
  statelessCall?: (
    key: string,
    contextOf: (signal: AbortSignal) => RequestContext,
    input: StatelessInput,
  ) => FrontDoorRequestHandler;
  /**
   * Whether a stateless `tools/call` of the tool its `Mcp-Name` header names is refused whatever
   * its body says (see `FrontDoor.refusesTool`): answered before the body is read.
   */
  refusesTool?: (name: string, ctx: RequestContext) => MaybePromise<boolean>;
  /**
   * Whether GET opens the server-to-client SSE stream (front door: `notifications/tools/list_changed`);
   * otherwise GET answers 405 (egress sends no server-initiated messages).
   */
  serverStream?: boolean;
  /** The caps and longest age of GET streams (spec 2 §8 by default); for tests. */
  streamLimits?: ServerStreamLimits;
  /** With authentication on: every request is authenticated, and a session stays its principal's. */
  authentication?: HttpAuthentication;
  /**
   * Where sessions are recorded. When the repository is `shared` (replicas on one database), a
   * request for a session held by another replica rebuilds it here, and every request checks that
   * the session was not ended elsewhere. Without it, sessions live in this process only.
   */
  sessions?: McpSessionRepository;
  /**
   * The caps on sessions this replica holds (`http.mcp_sessions`): per principal and per tenant with
   * authentication on, replica-wide always. At a cap a new session is refused (429), none evicted.
   */
  sessionCaps: SessionCapLimits;
}

/** The MCP SDK's default the gateway keeps (spec 2 §8): idle sessions expire after 30 minutes. */
const SESSION_IDLE_MS = 30 * 60 * 1000;
/** How often idle sessions are looked for. */
const SWEEP_INTERVAL_MS = 60 * 1000;
/**
 * How often `last seen` times are written to the session store, in one batch: a session's expiry
 * is 30 minutes, so a few seconds of lag cost nothing, and a busy session costs one write per
 * interval instead of one per request.
 */
const TOUCH_FLUSH_MS = 5 * 1000;

interface Session {
  server: Server;
  transport: SessionTransport;
  lastSeen: number;
  /**
   * Who calls: set by the request that opened the session, renewed by every later one (a fresh JWT),
   * which must authenticate as the same principal.
   */
  identity: { caller: Caller };
  /** Its place under the session caps, freed when the session leaves this replica. */
  slot: SessionSlot;
  /** The protocol revision negotiated at initialization (`airlock_mcp_sessions_open`). */
  protocolVersion: string;
}

/**
 * The MCP endpoint at `/mcp` over streamable HTTP: POST carries requests, DELETE ends a session,
 * GET opens the server-to-client stream in the front-door topology and answers 405 in egress, which
 * sends no notifications. Session ids are random UUIDs (a secure random source, visible ASCII).
 */
export class McpHttpEndpoint {
  private readonly sessions = new Map<string, Session>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly flusher: NodeJS.Timeout;
  /** `last seen` (epoch seconds) of sessions used since the last flush to the session store. */
  private readonly pendingSeen = new Map<string, number>();
  /** Rebuilds under way, so that concurrent requests for one session build it once. */
  private readonly restoring = new Map<string, Promise<Session | undefined>>();
  private readonly caps: SessionCaps;
  /** Callers authenticated before the body was read (see `refuseByName`), not authenticated again. */
  private readonly earlyCallers = new WeakMap<FastifyRequest, Caller>();

  /** The open GET streams (front door): caps, longest age, revocation. */
  private readonly streams: ServerStreams;
  /** DNS-rebinding protection: why a request is foreign, or null. */
  private readonly foreign: ReturnType<typeof createBrowserGuard>;

  constructor(
    private readonly services: McpEndpointServices,
    private readonly options: McpEndpointOptions,
  ) {
    // Without authentication every caller is the same anonymous principal: only the global cap applies.
    this.caps = new SessionCaps(options.sessionCaps, options.authentication !== undefined);
    this.foreign = createBrowserGuard({
      allowedOrigins: options.allowedOrigins ?? [],
      loopbackOnly: options.loopbackOnly !== false,
    });
    // Egress has no GET stream, but a stateless client may listen there too: the caps apply alike.
    this.streams = new ServerStreams(options.streamLimits);
    this.sweeper = setInterval(() => this.sweepIdle(), SWEEP_INTERVAL_MS);
    this.sweeper.unref();
    this.flusher = setInterval(() => void this.flushSeen(), TOUCH_FLUSH_MS);
    this.flusher.unref();
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  /** The sessions this replica holds, counted by negotiated protocol revision (read at scrape time). */
  sessionsByProtocol(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const session of this.sessions.values())
      counts.set(session.protocolVersion, (counts.get(session.protocolVersion) ?? 0) + 1);
    return counts;
  }

  mount(app: FastifyInstance, path = "/mcp"): void {
    // A graceful close waits for requests in flight; the sessions' GET streams would hold it for as
    // long as their clients stay (an hour at most): they end as the close begins.
    app.addHook("preClose", (done) => {
      for (const session of this.sessions.values()) session.transport.endServerStream();
      done();
    });
    // DNS-rebinding protection comes first, for every method (spec: a foreign Host or Origin is 403).
    const onRequest: onRequestHookHandler = (request, reply, done) => {
      const refusal = this.foreign(request.headers);
      if (refusal) reply.status(403).send(rpcError(-32000, refusal));
      else done();
    };
    const errorHandler = transportErrors(this.services.logger);
    // A callback, not an async function: a request whose decision is at hand passes without a promise.
    const preParsing: preParsingHookHandler = (request, reply, payload, done) => {
      const refused = this.refuseByName(request, reply);
      if (refused === false) return done(null, payload);
      if (refused === true) return;
      refused.then((answered) => answered || done(null, payload), done);
    };
    app.post(path, { onRequest, preParsing, errorHandler }, (request, reply) =>
      this.handlePost(request, reply),
    );
    app.delete(path, { onRequest }, (request, reply) => this.handleExisting(request, reply));
    if (this.options.serverStream) {
      app.get(path, { onRequest }, (request, reply) => this.handleExisting(request, reply));
      return;
    }
    app.get(path, { onRequest }, async (_request, reply) =>
      reply
        .status(405)
        .header("Allow", "POST, DELETE")
        .send(rpcError(-32000, "Method not allowed: this endpoint sends no server-initiated messages")),
    );
  }

  /**
   * Refuses a stateless `tools/call` by its headers alone, before its body is read, when the tool
   * its `Mcp-Name` names is one the caller may not call or is not offered (MCP 2026-07-28 mirrors
   * the name in the header for this): 404 with -32601 `Unknown tool`, as the answer after reading
   * it would be, but with a null id, since the request's id is in the unread body. A request whose
   * credentials fail is answered here too (once). Answers whether it answered, at once when
   * authentication and the decision need no I/O.
   */
  private refuseByName(request: FastifyRequest, reply: FastifyReply): MaybePromise<boolean> {
    const refuses = this.options.refusesTool;
    const name = refuses ? statelessToolName(request.headers) : null;
    if (!refuses || name === null) return false;
    return andThen(this.authenticate(request, reply), (caller) => {
      if (!caller) return true;
      this.earlyCallers.set(request, caller);
      const ctx = this.contextFor("stateless", { caller })(NEVER_ABORTED);
      return andThen(refuses(name, ctx), (refused) => {
        if (!refused) return false;
        const answer = statelessRefusal(
          new GatewayError("MethodNotFoundError", `Unknown tool: ${name}`),
          null,
        );
        reply.status(answer.status).send(answer.body);
        return true;
      });
    });
  }

  private async handlePost(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (request.body === MALFORMED_BODY) return reply.status(400).send(rpcError(-32700, "Parse error"));
    if (request.headers["mcp-session-id"]) return this.handleExisting(request, reply);
    const caller = this.earlyCallers.get(request) ?? (await this.authenticate(request, reply));
    if (!caller) return;
    const body = request.body;
    if (!isInitialize(body)) {
      const stateless = readStatelessPost(request.headers, body);
      if (stateless.kind === "legacy") {
        return reply.status(400).send(rpcError(-32000, "Bad Request: No valid session ID provided"));
      }
      if (stateless.kind === "refused") return reply.status(stateless.status).send(stateless.body);
      if (stateless.kind === "notification") return reply.status(202).send();
      return this.serveStateless(stateless, caller, request, reply);
    }
    const slot = this.caps.reserve(caller.principal);
    if (slot instanceof GatewayError) return refuse(reply, slot, body);
    const key = randomUUID();
    const identity = { caller };
    let opened = false;
    const { server, transport } = this.openSession(key, identity, async (id) => {
      opened = true;
      this.sessions.set(id, {
        server,
        transport,
        lastSeen: Date.now(),
        identity,
        slot,
        protocolVersion: negotiatedVersion(body.params.protocolVersion),
      });
      await this.record(id, caller, body);
    });
    try {
      await server.connect(transport);
      reply.hijack();
      await transport.handle(request, reply.raw);
    } finally {
      // The transport refused the request before the session opened (406, 415, a batch): no session.
      if (!opened) {
        slot.release();
        void transport.close().catch(() => undefined);
      }
    }
  }

  /**
   * One stateless request (revision 2026-07-28): served by a server of its own, made for it and
   * closed once it is answered, which answers as this request's credentials say (nothing is left
   * from an earlier request, and any replica serves it alike). `server/discover` is answered from
   * what that server declares. No session is opened, recorded or counted under the session caps.
   */
  private async serveStateless(
    stateless: StatelessRequest,
    caller: Caller,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<void> {
    const { message } = stateless;
    if (message.method === "subscriptions/listen") return this.listen(message, caller, request, reply);
    const key = randomUUID();
    const contextOf = this.contextFor(key, { caller });
    const transport = new SessionTransport({ sessionId: key });
    const statelessCall = DIRECT_METHODS.has(message.method) ? this.options.statelessCall : undefined;
    if (statelessCall) {
      // The hot path: served without an SDK server (`serveDirect`).
      serveDirect(transport, statelessCall(key, contextOf, stateless.input), this.services.tracer);
    } else {
      const server = this.options.statelessServer
        ? this.options.statelessServer(key, contextOf, stateless.input)
        : createManagementServer(this.services, contextOf);
      if (message.method === "server/discover") {
        const declared = await serveStatelessClient(server, transport);
        void transport.close();
        return reply.send({ jsonrpc: "2.0", id: message.id, result: discoverResult(declared) });
      }
      // No initialization is handed to a server that answers one request: nothing it serves reads
      // the client's (its capabilities come with the request, as `input` above).
      await connectStateless(server, transport);
    }
    try {
      reply.hijack();
      reply.raw.once("close", () => void transport.close().catch(() => undefined));
      const serverInfo = { name: SERVER_NAME, version: this.services.instance.version };
      transport.serveOnce(message, request.headers, reply.raw, statelessWriting(stateless, serverInfo));
    } catch (error) {
      void transport.close().catch(() => undefined);
      throw error;
    }
  }

  /**
   * A stateless `subscriptions/listen`: a stream under the same caps, longest age and re-checks as
   * a session's GET stream, acknowledging what it will carry. On the front door that is every list
   * change asked for and the updates of each resource the caller may subscribe to (subscribed as a
   * session's `resources/subscribe` would be); egress sends no change notifications, so it honors
   * none and the stream only stays open.
   */
  private async listen(
    message: JSONRPCRequest,
    caller: Caller,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<void> {
    const place = this.streams.reserve(caller);
    if ("refusal" in place) {
      return reply
        .status(429)
        .send({ jsonrpc: "2.0", id: message.id, error: { code: -32000, message: place.refusal } });
    }
    // A server of its own, which joins the hub to be sent the change notifications, for as long as
    // the stream is open.
    const { server, transport } = this.openSession(randomUUID(), { caller });
    try {
      await serveStatelessClient(server, transport);
    } catch (error) {
      place.settle(null, null);
      throw error;
    }
    const asked = listenRequested(message.params);
    const honored = this.options.serverStream
      ? {
          lists: asked.lists,
          resourceSubscriptions: await subscribed(transport, asked.resourceSubscriptions),
        }
      : { lists: [], resourceSubscriptions: [] };
    reply.hijack();
    reply.raw.once("close", () => void transport.close().catch(() => undefined));
    const { acknowledgement, carry } = listening(message.id, honored);
    transport.listenOnce(reply.raw, acknowledgement, carry);
    place.settle(reply.raw, await this.streamRecheck(request, caller));
  }

  /** A server and transport for session `key`, answering as `identity` says. */
  private openSession(
    key: string,
    identity: { caller: Caller },
    onsessioninitialized?: (id: string) => Promise<void>,
  ): { server: Server; transport: SessionTransport } {
    const contextOf = this.contextFor(key, identity);
    const server = this.options.sessionServer
      ? this.options.sessionServer(key, contextOf)
      : createManagementServer(this.services, contextOf);
    const transport = new SessionTransport({
      sessionId: key,
      ...(onsessioninitialized && { onsessioninitialized }),
    });
    transport.onclose = () => {
      // Only this transport's own entry: a rebuilt copy of the session may have replaced it.
      const session = this.sessions.get(key);
      if (session?.transport === transport) this.forget(key, session);
    };
    return { server, transport };
  }

  /** The context of the requests a server of `key` serves: the caller `identity` holds at the time. */
  private contextFor(key: string, identity: { caller: Caller }): (signal: AbortSignal) => RequestContext {
    return (signal) => ({
      principal: identity.caller.principal,
      authenticated: identity.caller.authenticated,
      channel: "mcp-http",
      clientAddress: identity.caller.clientAddress,
      // Suspension is per MCP session (`/sessions/{session_id}/suspend`): the gates read it here.
      sessionId: key,
      signal,
    });
  }

  /** Writes the record other replicas rebuild the session from. */
  private async record(id: string, caller: Caller, initialize: InitializeRequest): Promise<void> {
    const store = this.options.sessions;
    if (!store) return;
    const now = Date.now() / 1000;
    try {
      await store.create({
        session_id: id,
        principal_id: caller.principal.id,
        protocol_version: negotiatedVersion(initialize.params.protocolVersion),
        client_info: { ...initialize.params.clientInfo },
        client_capabilities: { ...initialize.params.capabilities },
        created_at: now,
        last_seen_at: now,
        ended_at: null,
      });
    } catch (error) {
      // The session still works on this replica; other replicas answer 404 for it.
      this.services.logger.error({ err: String(error) }, "MCP session could not be recorded");
    }
  }

  private async handleExisting(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const caller = await this.authenticate(request, reply);
    if (!caller) return;
    const id = request.headers["mcp-session-id"];
    // Streamable HTTP: a request other than initialization without a session id is a 400.
    if (id === undefined || id === "") {
      return reply.status(400).send(rpcError(-32000, "Bad Request: Mcp-Session-Id header is required"));
    }
    let session: Session | undefined;
    try {
      session = typeof id === "string" ? await this.find(id, caller, request.method === "DELETE") : undefined;
    } catch (error) {
      // A session held elsewhere that a cap keeps from being rebuilt here: it stays open, retry later.
      if (error instanceof GatewayError && error.type === "SessionLimitExceeded") {
        return refuse(reply, error, request.body);
      }
      this.services.logger.error({ err: String(error) }, "MCP session store unavailable");
      if (storeUnavailable(error)) return refuse(reply, error, request.body);
      return reply.status(503).send(rpcError(-32000, "Session store unavailable"));
    }
    // Another principal must not learn that the session exists, let alone use it.
    if (!session || typeof id !== "string" || caller.principal.id !== session.identity.caller.principal.id) {
      return reply.status(404).send(rpcError(-32001, "Session not found"));
    }
    session.identity.caller = caller;
    session.lastSeen = Date.now();
    if (request.method === "DELETE") {
      // Ended for every replica before the local copy closes (the transport closes on DELETE).
      this.pendingSeen.delete(id);
      await this.options.sessions?.end(id, Date.now() / 1000).catch((error: unknown) => {
        this.services.logger.error({ err: String(error) }, "MCP session end could not be recorded");
      });
    } else if (this.options.sessions) {
      this.pendingSeen.set(id, session.lastSeen / 1000);
    }
    const place = request.method === "GET" ? this.streams.reserve(caller) : undefined;
    if (place && "refusal" in place) return reply.status(429).send(rpcError(-32000, place.refusal));
    reply.hijack();
    try {
      await session.transport.handle(request, reply.raw);
    } catch (error) {
      place?.settle(null, null);
      throw error;
    }
    if (place) {
      const opened = reply.raw.statusCode === 200;
      place.settle(opened ? reply.raw : null, opened ? await this.streamRecheck(request, caller) : null);
    }
  }

  /**
   * Judges an open stream's caller again from the request that opened it: its credential still
   * authenticates (not revoked, not expired), and it still holds every role it held when the
   * stream opened (an assignment revoked ends the stream). Null with authentication off.
   */
  private async streamRecheck(request: FastifyRequest, caller: Caller): Promise<StreamRecheck | null> {
    const auth = this.options.authentication;
    if (!auth) return null;
    const { authorizer } = this.services;
    const roleNames = async (principal: Principal) =>
      new Set((await authorizer.heldRoles(principal)).map((held) => held.role));
    const opened = await roleNames(caller.principal);
    return async () => {
      const outcome = await authenticateRequest(request, auth, "recheck");
      if (!outcome.ok) return false;
      const now = await roleNames(outcome.principal);
      return [...opened].every((role) => now.has(role));
    };
  }

  /**
   * The session `id` for this request: the local copy, checked against the shared record when other
   * replicas may have ended it; otherwise rebuilt from the record when the caller's principal opened
   * it. Undefined when the session does not exist, ended, expired, or is another principal's.
   * A rebuilt session takes a slot under the caps like a new one; over a cap this throws the
   * `SessionLimitExceeded` refusal, and the session stays as it is (open, recorded) for a retry.
   * `ending` (a DELETE) rebuilds whatever the caps: the session ends, freeing its slot at once.
   */
  private async find(id: string, caller: Caller, ending: boolean): Promise<Session | undefined> {
    const store = this.options.sessions;
    const local = this.sessions.get(id);
    if (local) {
      if (!store?.shared || local.identity.caller.principal.id !== caller.principal.id) return local;
      let record: McpSessionRecord | undefined;
      try {
        record = await store.get(id);
      } catch (error) {
        // While the database is away the session this replica holds keeps serving its principal;
        // an end recorded by another replica is seen once the record can be read again.
        if (storeUnavailable(error)) return local;
        throw error;
      }
      if (record && this.live(record, local.lastSeen)) return local;
      this.closeSession(id, local);
      return undefined;
    }
    if (!store) return undefined;
    // Keyed by principal too: a stranger's attempt must not make the owner's request fail.
    const key = `${caller.principal.id}\u0000${id}`;
    let restoring = this.restoring.get(key);
    if (!restoring) {
      restoring = this.restore(id, caller, store, ending).finally(() => this.restoring.delete(key));
      this.restoring.set(key, restoring);
    }
    return restoring;
  }

  /** Rebuilds a session recorded by another replica (or by this one before a restart). */
  private async restore(
    id: string,
    caller: Caller,
    store: McpSessionRepository,
    ending: boolean,
  ): Promise<Session | undefined> {
    const record = await store.get(id);
    if (!record || !this.live(record, 0) || record.principal_id !== caller.principal.id) return undefined;
    const slot = this.caps.reserve(caller.principal, ending);
    if (slot instanceof GatewayError) throw slot;
    const identity = { caller };
    const { server, transport } = this.openSession(id, identity);
    try {
      await server.connect(transport);
      await replayInitialization(transport, record);
    } catch (error) {
      slot.release();
      await transport.close().catch(() => undefined);
      throw error;
    }
    const session: Session = {
      server,
      transport,
      lastSeen: Date.now(),
      identity,
      slot,
      protocolVersion: record.protocol_version,
    };
    this.sessions.set(id, session);
    return session;
  }

  /** Whether a record names a session neither ended nor idle past expiry (`localSeen` in ms). */
  private live(record: McpSessionRecord, localSeen: number): boolean {
    const lastSeen = Math.max(record.last_seen_at * 1000, localSeen);
    return record.ended_at === null && lastSeen >= Date.now() - SESSION_IDLE_MS;
  }

  /**
   * The caller of a request, or null once the refusal was sent (401, or 429 while locked out); at
   * once when authentication needs no I/O.
   */
  private authenticate(request: FastifyRequest, reply: FastifyReply): MaybePromise<Caller | null> {
    const auth = this.options.authentication;
    if (!auth) return callerOf(request);
    return andThen(authenticateRequest(request, auth), (outcome) => {
      if (!outcome.ok) {
        sendAuthenticationFailure(reply, outcome, auth);
        return null;
      }
      const caller: Caller = {
        principal: outcome.principal,
        authenticated: outcome.authenticated,
        clientAddress: outcome.clientAddress,
      };
      // Where the REST routes keep it: the access log names the principal of every request.
      request.caller = caller;
      return caller;
    });
  }

  private sweepIdle(): void {
    const cutoff = Date.now() - SESSION_IDLE_MS;
    for (const [id, session] of this.sessions) {
      if (session.lastSeen < cutoff) this.closeSession(id, session);
    }
    // Records idle past expiry (here or on any replica) or ended earlier go; any replica may do it.
    void this.options.sessions?.purge(cutoff / 1000).catch((error: unknown) => {
      this.services.logger.warn({ err: String(error) }, "expired MCP sessions could not be purged");
    });
  }

  /** Writes the batched `last seen` times. */
  private async flushSeen(): Promise<void> {
    const store = this.options.sessions;
    if (!store || this.pendingSeen.size === 0) return;
    const seen = [...this.pendingSeen].map(([session_id, last_seen_at]) => ({ session_id, last_seen_at }));
    this.pendingSeen.clear();
    await store.touch(seen).catch((error: unknown) => {
      this.services.logger.warn({ err: String(error) }, "MCP session activity could not be recorded");
    });
  }

  /** Closes the local copy of a session (its record, if any, is left as it is). */
  private closeSession(id: string, session: Session): void {
    this.forget(id, session);
    void session.transport.close().catch(() => undefined);
  }

  /** The local copy of a session leaves this replica: its slot under the caps is freed. */
  private forget(id: string, session: Session): void {
    if (this.sessions.get(id) === session) this.sessions.delete(id);
    session.slot.release();
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.streams.close();
    clearInterval(this.flusher);
    await this.flushSeen();
    const all = [...this.sessions.values()];
    this.sessions.clear();
    for (const session of all) session.slot.release();
    await Promise.all(all.map((session) => session.transport.close().catch(() => undefined)));
  }
}

function rpcError(code: number, message: string) {
  return { jsonrpc: "2.0", error: { code, message }, id: null };
}

/** A request the endpoint refuses itself, as the one MCP error mapping writes it. */
function refuse(reply: FastifyReply, error: GatewayError, body: unknown): FastifyReply {
  const answer = transportRefusal(error, readableRequestId(body));
  return reply.status(answer.status).headers(answer.headers).send(answer.body);
}

/**
 * What the HTTP layer refuses before the endpoint reads a POST (a body over 4 MiB, 413; one nested
 * deeper than `http.max_json_depth`, 400 with -32600 and the request's id), answered as a JSON-RPC
 * error object, as the MCP SDK's transport would, rather than in REST's flat shape.
 */
const transportErrors =
  (logger: Logger) =>
  (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    if (error instanceof BodyTooDeep) {
      reply.status(400).send({
        jsonrpc: "2.0",
        error: { code: -32600, message: `Invalid Request: message has ${jsonDepthRefusal(error.maxDepth)}` },
        id: readableRequestId(error.parsed),
      });
      return;
    }
    if (storeUnavailable(error)) {
      // Authentication could not read the key or the session store: the database is away, retry later.
      refuse(reply, error, request.body);
      return;
    }
    const status = typeof error.statusCode === "number" && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) logger.error({ ...requestFields(request), err: error }, "MCP request failed");
    const message =
      status === 413
        ? "Request body too large: 4 MiB at most"
        : status < 500
          ? "Bad Request: the request could not be read"
          : "Internal error";
    reply.status(status).send(rpcError(-32000, message));
  };

/** The shared store could not be reached (the database is away), as opposed to any other failure. */
function storeUnavailable(error: unknown): error is GatewayError {
  return error instanceof GatewayError && error.type === "StoreUnavailableError";
}

/** The resources of `uris` the server behind `transport` subscribed its caller to. */
async function subscribed(transport: SessionTransport, uris: readonly string[]): Promise<string[]> {
  const answers = await Promise.all(
    uris.map((uri, index) =>
      transport.ask({
        jsonrpc: "2.0",
        id: `airlock-listen-${index}`,
        method: "resources/subscribe",
        params: { uri },
      }),
    ),
  );
  return uris.filter((_uri, index) => "result" in (answers[index] as object));
}

/**
 * Connects a server made for stateless requests to `transport` and hands it the initialization
 * every stateless client shares; answers what the server declared. Closes the transport when that
 * fails.
 */
async function serveStatelessClient(server: Server, transport: SessionTransport) {
  await connectStateless(server, transport);
  try {
    return await adoptClient(transport, STATELESS_CLIENT);
  } catch (error) {
    void transport.close().catch(() => undefined);
    throw error;
  }
}

/** The signal of a decision that nothing cancels (the early refusal by `Mcp-Name`). */
const NEVER_ABORTED = new AbortController().signal;

/**
 * The stateless requests served without an MCP server (`serveDirect`): `tools/call`, the hot path,
 * and the tasks extension's methods, which the SDK's server of the session revisions does not know.
 */
const DIRECT_METHODS = new Set(["tools/call", ...TASKS_EXTENSION_METHODS]);

/** Connects a server made for stateless requests to `transport`; closes the transport when that fails. */
async function connectStateless(server: Server, transport: SessionTransport): Promise<void> {
  try {
    await server.connect(transport);
  } catch (error) {
    void transport.close().catch(() => undefined);
    throw error;
  }
}

/** The revision a session speaks, negotiated as the SDK's server does: the client's when supported, else the latest. */
function negotiatedVersion(requested: string): string {
  return SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION;
}
