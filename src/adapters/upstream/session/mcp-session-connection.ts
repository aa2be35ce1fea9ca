import {
  Client,
  type ClientCapabilities,
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  type Transport,
} from "@modelcontextprotocol/client";
import { z } from "zod";
import {
  type CallOptions,
  type ContentBlock,
  type ToolCallResult,
  type UpstreamConnection,
  UpstreamConnectionLost,
  type UpstreamPeer,
} from "../../../app/ports/upstream.js";
import type { ToolSchema } from "../../../domain/server/server-spec.js";
import { STATELESS_REVISION } from "../../../domain/stateless-revision.js";
import { DirectRequests } from "./direct-requests.js";
import { type StatelessUpstream, StatelessUpstreamLane } from "./stateless-upstream.js";

/**
 * Most `tools/list` pages followed. A server whose cursors never end would otherwise keep the call
 * busy until its deadline; 100 pages is far more than any real server needs.
 */
const MAX_TOOL_PAGES = 100;

export interface ClientInfo {
  readonly name: string;
  readonly version: string;
  /**
   * Client capabilities declared to upstreams: the front door declares what it relays (sampling,
   * elicitation, roots). None otherwise: no upstream may ask the gateway for what nobody answers.
   */
  readonly capabilities?: ClientCapabilities;
}

/** `clientInfo` of `initialize` when the composition passes none. */
export const DEFAULT_CLIENT_INFO: ClientInfo = { name: "airlock", version: "0.0.0" };

/**
 * An SDK client as every mode uses it: no client capabilities, errors left to the requests.
 *
 * `connect` runs the plain `initialize` handshake (`versionNegotiation: legacy`): which revision an
 * upstream is spoken to at is chosen before, by `mcp_revision`, and a stateless upstream's client is
 * never connected with a handshake. `input_required` answers are never fulfilled by the client
 * (`autoFulfill: false`): the stateless lane asks the gateway's own clients for that input. No
 * `listChanged` handlers are configured, so list changes reach the fallback handler as they came,
 * and the listings go through plain requests (`request`), never the client's list helpers, so its
 * response cache and page walking stay unused.
 */
export function createSessionClient(info: ClientInfo = DEFAULT_CLIENT_INFO): Client {
  const client = new Client(
    { name: info.name, version: info.version },
    {
      capabilities: info.capabilities ?? {},
      versionNegotiation: { mode: "legacy" },
      inputRequired: { autoFulfill: false },
    },
  );
  // Failures reach callers through rejected requests and onClosed; nothing to do with them here.
  client.onerror = () => {};
  return client;
}

function isContentBlock(value: unknown): value is ContentBlock {
  return (
    typeof value === "object" && value !== null && typeof (value as { type?: unknown }).type === "string"
  );
}

/**
 * What a `tools/call` result is checked against: an object whose `content`, when present, lists
 * objects with a string `type` (all the gateway itself reads), checked in place without copying.
 * Everything else passes as the upstream sent it. The SDK's `CallToolResultSchema` would copy every
 * block through the whole content union (base64 of images and audio, resources, annotations):
 * 15 ms for 5 MB in 50,000 text blocks where this takes 0.5 ms, and it would refuse block types of
 * newer protocol revisions the gateway only relays.
 */
const RawToolResultSchema = z.looseObject({
  content: z
    .custom<ContentBlock[]>((value) => Array.isArray(value) && value.every(isContentBlock), {
      message: "content must be a list of objects with a string type",
    })
    .optional(),
});

/**
 * Hands what the transport reads to the direct lane first, the rest to the SDK client; tells the
 * lane when the connection ends. The SDK hands notifications to their handlers a microtask later;
 * its responses are delayed by one microtask too, so that they stay behind the notifications read
 * before them (in the same chunk). The lane keeps that order for its own progress itself.
 */
function routeIncoming(transport: Transport, direct: DirectRequests): void {
  const deliver = transport.onmessage;
  const closed = transport.onclose;
  transport.onmessage = (message, extra) => {
    if (direct.take(message)) return;
    if ("id" in message && !("method" in message))
      queueMicrotask(() => deliver?.call(transport, message, extra));
    else deliver?.call(transport, message, extra);
  };
  transport.onclose = () => {
    direct.close();
    closed?.call(transport);
  };
}

/** First id of the direct lane's requests; the SDK client counts its own up from 0. */
const LANE_FIRST_ID = 2 ** 30;
/** Past the last id the lane uses, it starts again at its first (ids of calls long answered). */
const LANE_ID_END = 2 ** 31 - 1;

/**
 * Request ids of the direct lane: from 2^30 up, below 2^31, so that they never meet the SDK
 * client's (which counts from 0 and sends a handful of requests per connection: `initialize` and
 * listings), and every id is a non-negative integer that fits in 32 bits,
 * as a server keeping ids in an `int32` or an unsigned type needs.
 */
function laneRequestIds(): () => number {
  let next = LANE_FIRST_ID;
  return () => {
    const id = next;
    next = id + 1 < LANE_ID_END ? id + 1 : LANE_FIRST_ID;
    return id;
  };
}

/**
 * A plain `tools/call` result: an object whose `content`, when present, lists objects with a
 * string `type`. What {@link RawToolResultSchema} accepts, checked without zod.
 */
function isRawToolResult(value: unknown): value is ToolCallResult {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const content = (value as { content?: unknown }).content;
  return content === undefined || (Array.isArray(content) && content.every(isContentBlock));
}

/** Any JSON-RPC result object, passed through as the upstream sent it. */
const AnyResultSchema = z.looseObject({});

function isResultObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** What differs between modes; the session does the rest. */
export interface SessionEnds {
  /**
   * Resolves, once, with a readable reason when the connection ended (`process exited with code
   * 3`). Ignored once `close()` was called: listeners only hear about ends nobody asked for.
   */
  readonly ended: Promise<string>;
  /**
   * Runs first in `close()`, synchronously; `endedAlready` tells whether the connection had ended
   * by itself. For work the client must still be open for (remote: end the HTTP session).
   */
  readonly beforeClose?: (endedAlready: boolean) => Promise<void> | undefined;
  /**
   * Frees what the client leaves behind once it is closed: waits for the child and its group to be
   * gone, the container to be removed, the sockets to be destroyed. Idempotent.
   */
  readonly release: () => Promise<void>;
  /**
   * Whether an end nobody asked for first closes the client and runs `release` before listeners
   * hear of it (remote, where nothing else would). Local transports clean up after themselves.
   */
  readonly releaseBeforeAnnouncing?: boolean;
  /** The reason named when a request fails because the connection closed. */
  readonly closedReason: (closeRequested: boolean) => string;
  /** Makes a failure that is not an abort, a timeout or a closed connection safe to show. */
  readonly describeFailure?: (error: unknown, what: string) => unknown;
}

/** The protocol revision `initialize` settled on, per transport (see {@link recordProtocolVersion}). */
const negotiated = new WeakMap<Transport, string>();

/**
 * Records the protocol revision `initialize` settles on for `transport`, read back as
 * {@link McpSessionConnection.protocolVersion}. The SDK's client hands that revision to the
 * transport's `setProtocolVersion`, an optional member of the `Transport` interface: it is
 * wrapped (or set, on a transport without one). Call before `client.connect(transport)`.
 */
export function recordProtocolVersion(transport: Transport): void {
  const own = transport.setProtocolVersion?.bind(transport);
  transport.setProtocolVersion = (version: string) => {
    negotiated.set(transport, version);
    own?.(version);
  };
}

/**
 * An initialized MCP session over an SDK `Client`, whatever carries it (child process, container,
 * HTTP). Modes extend it with what is theirs to show (pid, container id, transport kind).
 *
 * Guaranteed: `listTools` follows cursors (at most {@link MAX_TOOL_PAGES} pages, all within one
 * `timeoutMs`); `callTool` returns the result as the upstream sent it, with `content` defaulting to
 * `[]`; `close()` is idempotent and every caller's promise resolves once `release` did; `onClosed`
 * listeners run once with the reason when the connection ends without `close()`, including a
 * listener added after that happened. Calls reject with: the signal's reason when aborted; an Error
 * named `TimeoutError` (the name `AbortSignal.timeout()` uses) past `timeoutMs`; `upstream
 * connection closed: <reason>` when the connection ends mid-call or has ended; the server's JSON-RPC
 * error otherwise (through `describeFailure`). Not guaranteed: ordering between concurrent calls.
 */
export class McpSessionConnection implements UpstreamConnection {
  private closeRequested = false;
  private closing: Promise<void> | undefined;
  private releasing: Promise<void> | undefined;
  /** Set as soon as the connection ended by itself. */
  private endedWithoutClose: string | undefined;
  /** Set once listeners were told (after the release, where it comes first). */
  private announced: string | undefined;
  private readonly listeners: Array<(reason: string) => void> = [];
  private peer: UpstreamPeer | null = null;
  /** The lane of the relayed requests; none for a client that is not connected (its calls fail). */
  private readonly direct: DirectRequests | undefined;
  /** The requests of a stateless upstream (none for a session's). */
  private readonly lane: StatelessUpstreamLane | undefined;

  /**
   * `stateless`: the upstream speaks revision 2026-07-28 and `client` was connected to its
   * transport without `initialize` (`Protocol.connect`); every request then goes through the direct
   * lane with the envelope, and an `input_required` answer is fulfilled through the peer.
   */
  constructor(
    private readonly client: Client,
    private readonly ends: SessionEnds,
    private readonly stateless?: StatelessUpstream,
  ) {
    void ends.ended.then((reason) => this.endUnasked(reason));
    const transport = client.transport;
    if (transport) {
      this.direct = new DirectRequests(transport, laneRequestIds());
      routeIncoming(transport, this.direct);
      if (stateless) this.lane = new StatelessUpstreamLane(this.direct, stateless, () => this.peer);
    }
    // Whatever the upstream initiates goes to the peer (front door) unchanged; progress and
    // cancellation of the gateway's own requests are handled by the SDK before this.
    client.fallbackNotificationHandler = async (notification) => {
      // The acknowledgement of the lane's own listen stream is for no client.
      if (notification.method === "notifications/subscriptions/acknowledged") return;
      this.peer?.notification(notification.method, notification.params);
    };
    client.fallbackRequestHandler = async (request, ctx) => {
      const peer = this.peer;
      // The SDK writes the message as it is; this is the text upstreams have always been sent.
      if (!peer) {
        throw new ProtocolError(
          ProtocolErrorCode.MethodNotFound,
          `MCP error ${ProtocolErrorCode.MethodNotFound}: Method not supported: ${request.method}`,
        );
      }
      return peer.request(request.method, request.params, ctx.mcpReq.signal);
    };
  }

  get protocolVersion(): string | undefined {
    if (this.stateless) return STATELESS_REVISION;
    const transport = this.client.transport;
    return transport ? negotiated.get(transport) : undefined;
  }

  get serverCapabilities(): Record<string, unknown> {
    if (this.stateless) return this.stateless.capabilities;
    return (this.client.getServerCapabilities() ?? {}) as Record<string, unknown>;
  }

  setPeer(peer: UpstreamPeer | null): void {
    this.peer = peer;
  }

  relay(
    method: string,
    params: Record<string, unknown> | undefined,
    options: CallOptions,
  ): Promise<Record<string, unknown>> {
    const local = this.lane?.local(method, params);
    if (local) return Promise.resolve(local);
    return this.request(method, method, params, options, AnyResultSchema, isResultObject);
  }

  async notify(method: string, params: Record<string, unknown> | undefined): Promise<void> {
    // The stateless revision has no notification from client to server.
    if (this.stateless) return;
    await this.client.notification({ method, ...(params !== undefined && { params }) });
  }

  async listTools(options: CallOptions): Promise<ToolSchema[]> {
    const deadline = performance.now() + options.timeoutMs;
    const tools: ToolSchema[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const timeout = Math.max(1, deadline - performance.now());
      const params = cursor === undefined ? undefined : { cursor };
      // Through the direct lane, checked by `ListedTools` alone: the SDK client would check each
      // tool's schemas against its own recursive JSON Schema type (a schema nested thousands of
      // levels deep exhausts the stack there, before the fleet refuses it by name), and its
      // `listTools()` would walk every page itself and fill its cache.
      const result = (await this.request(
        "tools/list",
        "tools/list",
        params,
        { ...options, timeoutMs: timeout },
        ListedTools,
        isListing,
      )) as ListedPage;
      for (const tool of result.tools) tools.push(toToolSchema(tool));
      if (!result.nextCursor || result.nextCursor === cursor) return tools;
      cursor = result.nextCursor;
    }
    return tools;
  }

  async callTool(name: string, args: Record<string, unknown>, options: CallOptions): Promise<ToolCallResult> {
    // A plain request, not `client.callTool`: the gateway passes results through as the upstream
    // sent them, and the SDK helper would reject structured content its output schema disowns.
    const params: Record<string, unknown> = { ...options.extraParams, name, arguments: args };
    if (options.traceContext !== undefined)
      params._meta = withTraceContext(params._meta, options.traceContext);
    const result = await this.request(
      "tool call",
      "tools/call",
      params,
      options,
      RawToolResultSchema,
      isRawToolResult,
    );
    // A task-augmented call answers `{task}` (MCP tasks), relayed without a content list. The
    // schema's answer is already a copy of its own: it is returned as it is when it has content.
    if ("task" in result || result.content !== undefined) return result as ToolCallResult;
    return { ...result, content: [] } as ToolCallResult;
  }

  /**
   * One relayed request, its result checked against `schema` (`accepts` tells the same without
   * zod; the schema runs only to raise its error). Through the direct lane (which follows a task's
   * progress past its first answer), or through the SDK client when none is connected (it fails).
   */
  private async request(
    what: string,
    method: string,
    params: Record<string, unknown> | undefined,
    options: CallOptions,
    schema: z.ZodType<Record<string, unknown>>,
    accepts: (result: unknown) => result is Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    const direct = this.direct;
    const lane = this.lane;
    if (lane) {
      try {
        const result = await lane.request(method, params, options);
        return accepts(result) ? result : schema.parse(result);
      } catch (error) {
        throw this.translate(error, what, options);
      }
    }
    if (direct === undefined) {
      return this.guard(what, options, (scoped) =>
        this.client.request({ method, ...(params !== undefined && { params }) }, schema, {
          ...(scoped.signal && { signal: scoped.signal }),
          timeout: scoped.timeoutMs,
        }),
      );
    }
    try {
      const result = await direct.request(method, params, options);
      return accepts(result) ? result : schema.parse(result);
    } catch (error) {
      throw this.translate(error, what, options);
    }
  }

  close(): Promise<void> {
    this.closeRequested = true;
    this.lane?.close();
    if (!this.closing) {
      const first = this.ends.beforeClose?.(this.endedWithoutClose !== undefined);
      this.closing = Promise.resolve(first).then(() => this.release());
    }
    return this.closing;
  }

  onClosed(listener: (reason: string) => void): void {
    const reason = this.announced;
    if (reason === undefined) {
      this.listeners.push(listener);
      return;
    }
    queueMicrotask(() => listener(reason));
  }

  /** Closes the client (pending requests reject, the transport closes), then frees the rest. */
  private release(): Promise<void> {
    this.releasing ??= this.client
      .close()
      .catch(() => {})
      .then(() => this.ends.release());
    return this.releasing;
  }

  private async endUnasked(reason: string): Promise<void> {
    if (this.closeRequested) return;
    this.endedWithoutClose = reason;
    if (this.ends.releaseBeforeAnnouncing) await this.release();
    this.announced = reason;
    for (const listener of this.listeners.splice(0)) listener(reason);
  }

  /**
   * Runs one request of the SDK client, its failure translated. (The SDK removes the listener it
   * adds to a request's signal once the request settles, so a caller's signal shared by many
   * requests, as a batch's is, collects none.)
   */
  private async guard<T>(
    what: string,
    options: CallOptions,
    run: (options: CallOptions) => Promise<T>,
  ): Promise<T> {
    try {
      return await run(options);
    } catch (error) {
      throw this.translate(error, what, options);
    }
  }

  private translate(error: unknown, what: string, options: CallOptions): unknown {
    if (options.signal?.aborted) return options.signal.reason;
    if (this.endedWithoutClose !== undefined) {
      return new UpstreamConnectionLost(`upstream connection closed: ${this.endedWithoutClose}`);
    }
    if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
      const timeout = new Error(`${what} timed out after ${options.timeoutMs} ms`);
      timeout.name = "TimeoutError";
      return timeout;
    }
    if (error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed) {
      return new UpstreamConnectionLost(
        `upstream connection closed: ${this.ends.closedReason(this.closeRequested)}`,
      );
    }
    return this.ends.describeFailure ? this.ends.describeFailure(error, what) : error;
  }
}

/**
 * The caller's `_meta` with the gateway's trace context: its other keys (progress token, ...) stay;
 * `traceparent`/`tracestate` are replaced, since the upstream's parent is now the gateway's span.
 */
function withTraceContext(meta: unknown, trace: Readonly<Record<string, string>>): Record<string, unknown> {
  const own = typeof meta === "object" && meta !== null && !Array.isArray(meta) ? meta : {};
  const { tracestate: _, ...rest } = own as Record<string, unknown>;
  return { ...rest, ...trace };
}

type ListedTool = Awaited<ReturnType<Client["listTools"]>>["tools"][number];
type ListedPage = { tools: ListedTool[]; nextCursor?: string | undefined };

/** A `tools/list` result of a stateless upstream: its `tools` a list of objects with a string name. */
const ListedTools = z.looseObject({
  tools: z.array(z.looseObject({ name: z.string(), inputSchema: z.looseObject({}) })),
  nextCursor: z.string().optional(),
});

function isListing(value: unknown): value is z.infer<typeof ListedTools> {
  const { tools, nextCursor } = (value ?? {}) as { tools?: unknown; nextCursor?: unknown };
  return (
    Array.isArray(tools) &&
    tools.every((tool) => typeof tool?.name === "string" && isResultObject(tool?.inputSchema)) &&
    (nextCursor === undefined || typeof nextCursor === "string")
  );
}

function toToolSchema(tool: ListedTool): ToolSchema {
  const { name, description, inputSchema, outputSchema, ...listing } = tool;
  const schema: ToolSchema = { name, inputSchema: inputSchema as Record<string, unknown> };
  if (description !== undefined) schema.description = description;
  if (outputSchema !== undefined) schema.outputSchema = outputSchema as Record<string, unknown>;
  if (Object.keys(listing).length > 0) schema.listing = listing;
  return schema;
}

/** What a transport of a local server (child process, container) tells its session. */
export interface LocalTransport {
  /** Resolves once, when the transport finished, with why (`container exited with code 3`). */
  readonly ended: Promise<string>;
  /** The reason `ended` resolved with, once finished. */
  readonly closedReason: string | undefined;
  /** Stops the server; resolves once it is gone. Idempotent. */
  close(): Promise<void>;
}

/**
 * The session ends of a local server: its transport stops it on `close()` and cleans up by itself
 * when it ends, so listeners hear of an end at once.
 */
export function localSessionEnds(transport: LocalTransport): SessionEnds {
  return {
    ended: transport.ended,
    release: () => transport.close(),
    closedReason: () => transport.closedReason ?? "closed",
  };
}
