import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import type { Transport, TransportSendOptions } from "@modelcontextprotocol/server";
import {
  type InitializeRequest,
  type InitializeResult,
  isJSONRPCErrorResponse,
  isJsonContentType,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type RequestId,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/server";
import {
  answeredRequest,
  isInitialize,
  isRequestMessage,
  messageText,
  readMessage,
} from "./jsonrpc-message.js";

/** The parts of an HTTP request to `/mcp` the transport reads; the body is already parsed JSON. */
export interface McpHttpRequest {
  method: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

/** Most messages in one batch (the SDK's limit). */
const MAX_BATCH_SIZE = 100;
/** A comment line on an idle SSE stream this often keeps proxies from closing it (the SDK's default). */
const KEEP_ALIVE_MS = 15_000;

/**
 * One MCP session's streamable HTTP transport (protocol 2025-03-26 and later), served straight on
 * Node's request and response: the gateway's fastify routes hand it the parsed body, and it writes
 * the answer itself, without a WHATWG Request and Response per message as the SDK's transport does.
 *
 * The answers to a POST's requests go back in one `application/json` body once all are in. If a
 * message about one of those requests must go first (an upstream's progress notification, or its
 * sampling, elicitation or roots request relayed by the front door), the answer turns into an SSE
 * stream at that moment, carrying that message, later ones and the answers; the client accepts
 * both, as the protocol requires. GET opens the session's stream of server-initiated messages.
 * Validation, status codes and error messages are those of the SDK's transport (1.x).
 */
export class SessionTransport implements Transport {
  sessionId: string | undefined;
  onmessage?: Transport["onmessage"];
  onclose?: Transport["onclose"];
  onerror?: Transport["onerror"];

  private initialized = false;
  private closed = false;
  /** The exchange each unanswered request of this session answers through, by request id. */
  private readonly exchanges = new Map<RequestId, Exchange>();
  private standalone: SseStream | undefined;
  /** A stateless `subscriptions/listen`: which server-initiated messages its stream carries, and how. */
  private listening: ((message: JSONRPCMessage) => JSONRPCMessage | null) | undefined;

  constructor(
    private readonly options: {
      /** The session's id, taken when the client initializes. */
      sessionId: string;
      /** Runs once the session has its id, before the initialize request is handled. */
      onsessioninitialized?: (sessionId: string) => Promise<void>;
    },
  ) {}

  async start(): Promise<void> {}

  /** Answers one HTTP request of this session (POST, GET or DELETE) on `res`. */
  async handle(request: McpHttpRequest, res: ServerResponse): Promise<void> {
    if (this.closed) return sendError(res, 404, -32001, "Session not found");
    if (request.method === "POST") return this.handlePost(request, res);
    if (request.method === "GET") return this.handleGet(request, res);
    if (request.method === "DELETE") return this.handleDelete(request, res);
    sendError(res, 405, -32000, "Method not allowed.", { allow: "GET, POST, DELETE" });
  }

  /**
   * Brings this transport, connected to a fresh server, into the state of a session initialized
   * elsewhere: the client's initialize request and `initialized` notification are handed to the
   * server as if they had arrived here. Answers what the server declared.
   */
  async adopt(initialize: InitializeRequest & { jsonrpc: "2.0"; id: RequestId }): Promise<InitializeResult> {
    this.sessionId = this.options.sessionId;
    this.initialized = true;
    const message = await this.ask(initialize as JSONRPCRequest);
    if (isJSONRPCErrorResponse(message))
      throw new Error(`replayed initialize failed: ${message.error.message}`);
    this.onmessage?.({ jsonrpc: "2.0", method: "notifications/initialized" });
    return (message as unknown as { result: InitializeResult }).result;
  }

  /**
   * Serves a stateless `subscriptions/listen` (revision 2026-07-28) on `res`: an SSE stream that
   * opens with `acknowledgement` and then carries the server-initiated messages `carry` lets
   * through, as it writes them, until either side ends it. Nothing else is sent on it.
   */
  listenOnce(
    res: ServerResponse,
    acknowledgement: JSONRPCMessage,
    carry: (message: JSONRPCMessage) => JSONRPCMessage | null,
  ): void {
    const stream = new SseStream(res, undefined);
    this.standalone = stream;
    this.listening = carry;
    res.once("close", () => {
      if (this.standalone === stream) this.standalone = undefined;
    });
    stream.write(acknowledgement);
  }

  /**
   * Hands the server a request of the gateway's own making (not the client's) and answers its
   * answer: what a stateless listen asks in the client's stead (`resources/subscribe`).
   */
  ask(request: JSONRPCRequest): Promise<JSONRPCMessage> {
    return new Promise((resolve) => {
      this.exchanges.set(request.id, { deliver: (message, id) => id !== undefined && resolve(message) });
      this.onmessage?.(request);
    });
  }

  /**
   * Answers one stateless request (revision 2026-07-28) on `res`, on a transport made for it alone:
   * no session id is checked or sent, and the answer is written as `writing` says. As
   * for a session's POST, the answer is one JSON body, or an SSE stream once a message about the
   * request must go first; a client that leaves cancels it.
   */
  serveOnce(
    message: JSONRPCRequest,
    headers: IncomingHttpHeaders,
    res: ServerResponse,
    writing: AnswerWriting,
  ): void {
    const exchange = new HttpExchange(
      res,
      headers,
      [message.id],
      undefined,
      (ids) => this.cancelLeft(ids),
      writing,
    );
    this.exchanges.set(message.id, exchange);
    this.onmessage?.(message);
  }

  /** The HTTP headers of the POST that carried request `id`, while it is unanswered. */
  requestHeaders(id: RequestId): IncomingHttpHeaders | undefined {
    return this.exchanges.get(id)?.headers;
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const answered = answeredRequest(message);
    const requestId = answered ?? options?.relatedRequestId;
    if (requestId === undefined) {
      // A server-initiated message: on the GET stream (or a listen stream, if it asked for it) when
      // one is open, otherwise dropped.
      const carried = this.listening ? this.listening(message) : message;
      if (carried) this.standalone?.write(carried);
      return;
    }
    const exchange = this.exchanges.get(requestId);
    if (!exchange) {
      if (this.closed) return;
      throw new Error(`No connection established for request ID: ${String(requestId)}`);
    }
    if (answered !== undefined) this.exchanges.delete(answered);
    exchange.deliver(message, answered);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Most often none is open (a stateless request's transport closes once it is answered).
    if (this.exchanges.size > 0) {
      const open = new Set(this.exchanges.values());
      this.exchanges.clear();
      for (const exchange of open) exchange.abort?.();
    }
    this.endServerStream();
    // The SDK's Protocol makes a ConnectionClosed error on every close, for the requests it still
    // waits on (most often none); capturing its stack would be most of what closing costs, on every
    // stateless request.
    const stackLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      this.onclose?.();
    } finally {
      Error.stackTraceLimit = stackLimit;
    }
  }

  /**
   * Ends the GET stream of server-initiated messages, if one is open: a shutdown waits for requests
   * in flight, and an idle stream is none (its client may open another on a new server).
   */
  endServerStream(): void {
    this.standalone?.end();
    this.standalone = undefined;
  }

  private async handlePost(request: McpHttpRequest, res: ServerResponse): Promise<void> {
    const accept = single(request.headers.accept);
    if (!accept?.includes("application/json") || !accept.includes("text/event-stream")) {
      return sendError(
        res,
        406,
        -32000,
        "Not Acceptable: Client must accept both application/json and text/event-stream",
      );
    }
    if (!isJsonContentType(single(request.headers["content-type"]))) {
      return sendError(res, 415, -32000, "Unsupported Media Type: Content-Type must be application/json");
    }
    const body = request.body;
    if (Array.isArray(body) && body.length > MAX_BATCH_SIZE) {
      return sendError(res, 400, -32600, `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`);
    }
    const messages = parseMessages(body);
    if (!messages) return sendError(res, 400, -32700, "Parse error: Invalid JSON-RPC message");

    if (messages.some((message) => isInitialize(message))) {
      if (this.initialized) return sendError(res, 400, -32600, "Invalid Request: Server already initialized");
      if (messages.length > 1) {
        return sendError(res, 400, -32600, "Invalid Request: Only one initialization request is allowed");
      }
      this.sessionId = this.options.sessionId;
      this.initialized = true;
      await this.options.onsessioninitialized?.(this.sessionId);
    } else if (this.refusedSession(request, res)) {
      return;
    }
    if (this.closed) return sendError(res, 404, -32001, "Session not found");

    const requests = messages.filter(isRequestMessage);
    if (requests.length === 0) {
      for (const message of messages) this.onmessage?.(message);
      res.writeHead(202).end();
      return;
    }
    const ids = [...new Set(requests.map((r) => r.id))];
    const exchange = new HttpExchange(res, request.headers, ids, this.sessionId, (left) =>
      this.cancelLeft(left),
    );
    for (const { id } of requests) this.exchanges.set(id, exchange);
    for (const message of messages) this.onmessage?.(message);
  }

  /**
   * The client closed the connection of a POST before its requests were answered: the server is
   * told they were cancelled, as a client's `notifications/cancelled` would, so their handlers stop
   * (a call held for approval expires its approval; an upstream call is cancelled there too).
   */
  private cancelLeft(ids: readonly RequestId[]): void {
    if (this.closed) return;
    for (const requestId of ids) {
      this.onmessage?.({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId, reason: "the client closed the connection before the answer" },
      });
    }
  }

  private async handleGet(request: McpHttpRequest, res: ServerResponse): Promise<void> {
    if (!single(request.headers.accept)?.includes("text/event-stream")) {
      return sendError(res, 406, -32000, "Not Acceptable: Client must accept text/event-stream");
    }
    if (this.refusedSession(request, res)) return;
    if (this.standalone) {
      return sendError(res, 409, -32000, "Conflict: Only one SSE stream is allowed per session");
    }
    const stream = new SseStream(res, this.sessionId);
    this.standalone = stream;
    res.once("close", () => {
      if (this.standalone === stream) this.standalone = undefined;
    });
    // Headers go out now: the client's GET resolves on them, long before any message.
    res.flushHeaders();
  }

  private async handleDelete(request: McpHttpRequest, res: ServerResponse): Promise<void> {
    if (this.refusedSession(request, res)) return;
    res.writeHead(200).end();
    await this.close();
  }

  /** Refuses (and answers) a request outside this session or naming an unsupported protocol version. */
  private refusedSession(request: McpHttpRequest, res: ServerResponse): boolean {
    if (!this.initialized) {
      sendError(res, 400, -32000, "Bad Request: Server not initialized");
      return true;
    }
    const sessionId = single(request.headers["mcp-session-id"]);
    if (!sessionId) {
      sendError(res, 400, -32000, "Bad Request: Mcp-Session-Id header is required");
      return true;
    }
    if (sessionId !== this.sessionId) {
      sendError(res, 404, -32001, "Session not found");
      return true;
    }
    const version = single(request.headers["mcp-protocol-version"]);
    if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      const supported = SUPPORTED_PROTOCOL_VERSIONS.join(", ");
      sendError(
        res,
        400,
        -32000,
        `Bad Request: Unsupported protocol version: ${version} (supported versions: ${supported})`,
      );
      return true;
    }
    return false;
  }
}

/** How the answer of a stateless request is written: its message, and its status when sent as JSON. */
export interface AnswerWriting {
  shape(answer: JSONRPCMessage): JSONRPCMessage;
  status(answer: JSONRPCMessage): number;
  /** Whether a message about the request (a notification) is sent to the client at all. */
  passes(message: JSONRPCMessage): boolean;
}

/** Where the messages about some requests go; `answered` is set when `message` answers one. */
interface Exchange {
  /** The headers of the HTTP request that carried the requests (none for the gateway's own). */
  readonly headers?: IncomingHttpHeaders;
  deliver(message: JSONRPCMessage, answered: RequestId | undefined): void;
  /** The session closed with the exchange's requests unanswered. */
  abort?(): void;
}

/** The answer to one POST: a JSON body once every request is answered, or an SSE stream. */
class HttpExchange implements Exchange {
  private readonly answers = new Map<RequestId, JSONRPCMessage>();
  private stream: SseStream | undefined;
  private gone = false;

  constructor(
    private readonly res: ServerResponse,
    readonly headers: IncomingHttpHeaders,
    private readonly ids: readonly RequestId[],
    private readonly sessionId: string | undefined,
    /** Told of the requests still unanswered when the client left. */
    onLeft: (unanswered: readonly RequestId[]) => void,
    /** How each answer is written, when not as a session's (a stateless request's). */
    private readonly writing?: AnswerWriting,
  ) {
    // The client left: what is still sent about these requests has nowhere to go. (`close` also
    // comes after a complete answer, with nothing left unanswered.)
    res.once("close", () => {
      this.gone = true;
      this.stream?.end();
      const unanswered = this.ids.filter((id) => !this.answers.has(id));
      if (unanswered.length > 0) onLeft(unanswered);
    });
  }

  deliver(sent: JSONRPCMessage, answered: RequestId | undefined): void {
    if (this.gone) return;
    if (answered === undefined) {
      if (!this.writing || this.writing.passes(sent)) this.streaming().write(sent);
      return;
    }
    const message = this.writing ? this.writing.shape(sent) : sent;
    this.answers.set(answered, message);
    const complete = this.answers.size === this.ids.length;
    if (this.stream) {
      this.stream.write(message);
      if (complete) this.stream.end();
      return;
    }
    if (!complete) return;
    // One request (alone or in a batch of one) is answered by one object, as the SDK does.
    const text =
      this.ids.length === 1
        ? messageText(message)
        : `[${this.ids.map((id) => messageText(this.answers.get(id) as JSONRPCMessage)).join(",")}]`;
    const headers: Record<string, string> = {};
    if (this.sessionId !== undefined) headers["mcp-session-id"] = this.sessionId;
    sendText(this.res, this.writing?.status(message) ?? 200, text, headers);
  }

  abort(): void {
    if (this.gone) return;
    if (this.stream) this.stream.end();
    else if (!this.res.headersSent) sendError(this.res, 404, -32001, "Session not found");
  }

  /** The SSE stream this answer became, opened on first use with the answers already in. */
  private streaming(): SseStream {
    if (!this.stream) {
      this.stream = new SseStream(this.res, this.sessionId);
      for (const answer of this.answers.values()) this.stream.write(answer);
    }
    return this.stream;
  }
}

/** An SSE response carrying JSON-RPC messages as `message` events, kept alive while idle. */
class SseStream {
  private readonly keepAlive: NodeJS.Timeout;

  constructor(
    private readonly res: ServerResponse,
    sessionId: string | undefined,
  ) {
    const headers: Record<string, string> = {
      "content-type": "text/event-stream",
      "cache-control": "no-cache, no-transform",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    };
    if (sessionId !== undefined) headers["mcp-session-id"] = sessionId;
    res.writeHead(200, headers);
    this.keepAlive = setInterval(() => this.send(": keepalive\n\n"), KEEP_ALIVE_MS);
    this.keepAlive.unref();
    res.once("close", () => clearInterval(this.keepAlive));
  }

  write(message: JSONRPCMessage): void {
    this.send(`event: message\ndata: ${messageText(message)}\n\n`);
  }

  end(): void {
    clearInterval(this.keepAlive);
    if (!this.res.writableEnded) this.res.end();
  }

  private send(chunk: string): void {
    if (!this.res.writableEnded && !this.res.destroyed) this.res.write(chunk);
  }
}

/** The messages of a POST body (one message or a batch), or null when one is not JSON-RPC. */
function parseMessages(body: unknown): JSONRPCMessage[] | null {
  const raw = Array.isArray(body) ? body : [body];
  const messages: JSONRPCMessage[] = [];
  for (const item of raw) {
    const message = readMessage(item);
    if (!message) return null;
    messages.push(message);
  }
  return messages;
}

function sendError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, { jsonrpc: "2.0", error: { code, message }, id: null }, headers);
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string>): void {
  sendText(res, status, JSON.stringify(body), headers);
}

/**
 * A JSON body with its length: headers and body leave in one write, with no chunked framing for
 * the client to parse.
 */
function sendText(res: ServerResponse, status: number, text: string, headers: Record<string, string>): void {
  res
    .writeHead(status, {
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength(text)),
      ...headers,
    })
    .end(text);
}

/** A header sent once (Node joins repeated custom headers with a comma). */
export function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
