import { type Client, SSEClientTransport, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { EndpointGuard, HttpClient, HttpClientFactory } from "../../../app/ports/endpoint-guard.js";
import type {
  ConnectOptions,
  LogSink,
  UpstreamConnection,
  UpstreamFactory,
} from "../../../app/ports/upstream.js";
import { RequestRejected } from "../../../domain/errors.js";
import type { ServerSpec } from "../../../domain/server/server-spec.js";
import { ABANDONED_MESSAGE, ConnectDeadline } from "../session/connect-deadline.js";
import {
  type ClientInfo,
  createSessionClient,
  DEFAULT_CLIENT_INFO,
  recordProtocolVersion,
} from "../session/mcp-session-connection.js";
import { attachWithoutHandshake, revisionChoice } from "../session/revision-choice.js";
import { type RevisionChoice, statelessEnvelope } from "../session/stateless-upstream.js";
import { ConnectionWatch, type RemoteTransportKind, STREAM_RECONNECTION } from "./connection-watch.js";
import { connectFailure, httpStatusOf, lostRequestAnswer, shouldFallBackToSse } from "./failure-messages.js";
import { RemoteConnection } from "./remote-connection.js";
import { type RemoteSettings, readRemoteSettings } from "./remote-settings.js";
import { createScopedFetch } from "./scoped-fetch.js";
import { probeStateless, statelessHeaders } from "./stateless-probe.js";

export interface RemoteUpstreamOptions {
  /** Sent as `clientInfo` in `initialize`; pass the gateway's name and version. */
  clientInfo?: ClientInfo;
  /** The SSRF policy, applied to endpoints registered through REST (`source: 'api'`). */
  guard: EndpointGuard;
  /** HTTP clients per connection: TLS settings, connect timeout, and the policy at connect time. */
  http: HttpClientFactory;
}

/** Everything one connect attempt opened, so that a failure or the deadline can close it. */
interface Opened {
  http?: HttpClient;
  client?: Client;
  abandoned: boolean;
}

/**
 * Opens `mode: remote` servers: MCP over streamable HTTP, or over the old HTTP+SSE transport
 * (`http.transport: auto` tries streamable HTTP first and falls back to SSE when the initialize POST
 * is answered with a 4xx other than 401, 403, 408 and 429, as the MCP specification advises).
 * Applies `auth` (bearer token or API-key header), `tls` and `http` (timeouts, extra headers).
 *
 * Endpoints registered through REST or hot-loaded (`spec.source` `api` or `runtime`) are checked by
 * the guard before each connect, and their HTTP client re-checks every address it connects to;
 * endpoints from the configuration file are trusted (and discovery ones exempt), so they get a
 * plain client.
 *
 * Guaranteed: `connect` settles within `options.timeoutMs`, or at once when `options.signal`
 * aborts (`start abandoned: the server was stopped`); on failure nothing stays open and the
 * Error is safe to show (`the endpoint answered HTTP 401 (check the auth block)`, `cannot connect
 * to host:port: connection refused`, `initialize timed out after 10000 ms`), or is the guard's
 * `RequestRejected(400, 'ssrf_blocked', ...)` as it is. No message or log carries a credential.
 * Not guaranteed: that a server behaves after initialize.
 */
export class RemoteUpstreamFactory implements UpstreamFactory {
  constructor(private readonly options: RemoteUpstreamOptions) {}

  async connect(spec: ServerSpec, _logs: LogSink, options: ConnectOptions): Promise<UpstreamConnection> {
    if (spec.mode !== "remote") throw new Error(`cannot run mode '${spec.mode}' as a remote server`);
    const endpoint = parseEndpoint(spec.endpoint);
    const settings = readRemoteSettings(spec.options);
    const opened: Opened = { abandoned: false };
    const deadline = new ConnectDeadline(options);
    const attempt = this.open(spec, endpoint, settings, opened, options.timeoutMs);
    try {
      return await deadline.race(attempt);
    } catch (error) {
      opened.abandoned = true;
      // A connection that completes after the deadline is closed as soon as it exists.
      void attempt.then((connection) => connection.close()).catch(() => {});
      await opened.client?.close().catch(() => {});
      await opened.http?.close();
      if (deadline.abandoned) throw new Error(ABANDONED_MESSAGE);
      if (deadline.timedOut) throw new Error(`initialize timed out after ${options.timeoutMs} ms`);
      throw error;
    } finally {
      deadline.dispose();
    }
  }

  private async open(
    spec: ServerSpec,
    endpoint: URL,
    settings: RemoteSettings,
    opened: Opened,
    timeoutMs: number,
  ): Promise<RemoteConnection> {
    const revision = revisionChoice(spec.options, "auto");
    // Hot-loaded endpoints come from a registry: as untrusted as REST-registered ones.
    const guarded = spec.source === "api" || spec.source === "runtime";
    if (guarded) await this.options.guard.assertAllowed(endpoint.href);
    if (opened.abandoned) throw new Error("abandoned");
    const http = await this.options.http.create({
      guarded,
      connectTimeoutMs: settings.connectTimeoutMs,
      tls: settings.tls,
    });
    opened.http = http;
    if (opened.abandoned) {
      // The deadline passed while the client was being made: nobody else will close it.
      await http.close();
      throw new Error("abandoned");
    }
    if (settings.transport !== "auto") {
      const only = await this.attempt(settings.transport, endpoint, settings, opened, timeoutMs, revision);
      if ("connection" in only) return only.connection;
      throw only.failure;
    }
    const first = await this.attempt("streamable_http", endpoint, settings, opened, timeoutMs, revision);
    if ("connection" in first) return first.connection;
    if (first.fallBackStatus === undefined || opened.abandoned) throw first.failure;
    const second = await this.attempt("sse", endpoint, settings, opened, timeoutMs, revision);
    if ("connection" in second) return second.connection;
    if (second.failure instanceof RequestRejected) throw second.failure;
    throw new Error(
      `${second.failure.message} (after streamable HTTP answered HTTP ${first.fallBackStatus})`,
    );
  }

  /**
   * One initialize over one transport. A failure comes back with its safe Error and, when
   * streamable HTTP was answered with a status that means "try SSE", that status.
   */
  private async attempt(
    kind: RemoteTransportKind,
    endpoint: URL,
    settings: RemoteSettings,
    opened: Opened,
    timeoutMs: number,
    revision: RevisionChoice,
  ): Promise<AttemptResult> {
    const http = opened.http as HttpClient;
    const scoped = {
      base: http.fetch,
      headers: settings.headers,
      ...(settings.auth !== undefined && { auth: settings.auth }),
      readTimeoutMs: settings.readTimeoutMs,
    };
    // An upstream that offers the stateless revision is spoken to at it, unless its entry asks for
    // a session (`mcp_revision`); any other opens a session, unless its entry requires stateless.
    const envelope = statelessEnvelope(this.options.clientInfo ?? DEFAULT_CLIENT_INFO);
    const stateless =
      kind === "streamable_http" && revision !== "session"
        ? await probeStateless(createScopedFetch(scoped), endpoint, envelope, timeoutMs)
        : undefined;
    if (opened.abandoned) throw new Error("abandoned");
    if (!stateless && revision === "stateless") {
      return {
        failure: new Error(
          "server/discover did not offer protocol revision 2026-07-28 (mcp_revision: stateless)",
        ),
      };
    }
    const watch = new ConnectionWatch(kind);
    const observed = createScopedFetch({ ...scoped, observer: watch });
    const fetch = stateless ? statelessHeaders(observed) : observed;
    const transport =
      kind === "sse"
        ? new SSEClientTransport(endpoint, { fetch })
        : new StreamableHTTPClientTransport(endpoint, { fetch, reconnectionOptions: STREAM_RECONNECTION });
    const client = createSessionClient(this.options.clientInfo);
    recordProtocolVersion(transport);
    watch.onRequestsLost = (ids, failure) => {
      for (const id of ids) transport.onmessage?.(lostRequestAnswer(id, failure));
    };
    opened.client = client;
    const context = { host: endpoint.host, secrets: settings.secrets };
    try {
      await Promise.race([
        // No `initialize` for a stateless upstream: the client is only wired to its transport.
        stateless
          ? attachWithoutHandshake(client, transport)
          : client.connect(transport, { timeout: timeoutMs }),
        watch.ended.then((reason) => Promise.reject(new Error(reason))),
      ]);
    } catch (error) {
      watch.stop();
      await client.close().catch(() => {});
      opened.client = undefined;
      const failure = connectFailure(error, watch.lastFailure, context);
      const fallBack = kind === "streamable_http" && shouldFallBackToSse(error);
      return fallBack ? { failure, fallBackStatus: httpStatusOf(error) } : { failure };
    }
    return {
      connection: new RemoteConnection({ client, transport, kind, watch, http, ...context, stateless }),
    };
  }
}

type AttemptResult = { connection: RemoteConnection } | { failure: Error; fallBackStatus?: number };

function parseEndpoint(endpoint: string | undefined): URL {
  if (endpoint === undefined || endpoint === "") throw new Error("remote server needs an endpoint");
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new Error("remote endpoint is not a valid URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new Error("remote endpoint must be an http or https URL");
  }
  if (url.username !== "" || url.password !== "") {
    throw new Error("remote endpoint must not carry credentials in the URL; use the auth block");
  }
  return url;
}
