import fastifyWebsocket from "@fastify/websocket";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { AccessRule } from "../../../app/admit.js";
import type { EventStreamServices } from "../../../app/edge-services.js";
import { ROUTE_ONLY } from "../../../app/rest-routes.js";
import { GatewayError } from "../../../domain/errors.js";
import { createOriginCheck } from "../origin-policy.js";
import { sendError } from "../plugins/errors.js";
import type { StreamIdentity } from "./event-connection.js";
import { EventStreamHub } from "./event-stream-hub.js";
import {
  allowAnonymous,
  type HandshakeRules,
  type HandshakeVerdict,
  judgeHandshake,
  type StreamAuthenticator,
} from "./handshake.js";
import { followLogs } from "./log-follower.js";
import {
  CLOSE_GOING_AWAY,
  CLOSE_POLICY_VIOLATION,
  closeReason,
  SOCKET_CLOSED,
  type StreamSocket,
} from "./socket.js";
import { EVENT_STREAM_PATH, LOG_STREAM_PATH, STATE_EVENT_TYPES, STATE_STREAM_PATH } from "./stream-paths.js";
import { DEFAULT_LIMITS, DEFAULT_TIMINGS, type StreamLimits, type StreamTimings } from "./stream-settings.js";

export interface EventStreamOptions {
  /** Defaults to `allowAnonymous` (authentication off). */
  authenticate?: StreamAuthenticator;
  /** Name of the API-key header (`auth.api_key.header_name`); default `X-API-Key`. */
  apiKeyHeader?: string;
  /** Browser origins allowed besides loopback ones (`http.allowed_origins`). */
  allowedOrigins?: readonly string[];
  timings?: Partial<StreamTimings>;
  limits?: Partial<StreamLimits>;
  /** Largest frame a client may send; a larger one closes the socket with 1009. Default 64 KiB. */
  maxPayloadBytes?: number;
}

/** Name under which the hub is decorated on the root instance: `app.getDecorator<EventStreamHub>(...)`. */
export const EVENT_STREAM_DECORATOR = "eventStream";

/** Client frames are small JSON objects; 64 KiB leaves room for a maximal subscribe frame. */
const DEFAULT_MAX_PAYLOAD = 64 * 1024;
const SHUTDOWN_REASON = "Server shutting down";
const UPGRADE_REQUIRED = "this path serves a WebSocket: send the request with Upgrade: websocket";
/** The close reason when a re-check confines the connection otherwise, or could not be made. */
const SCOPE_CHANGED = "Access changed: reconnect";

/**
 * Mounts `{prefix}/ws/events` (every event) and `{prefix}/ws/state` (state changes only) on the
 * root instance `app`, registering WebSocket support first (once per instance). Returns the hub, which is also decorated as `eventStream`.
 */
export async function registerEventStream(
  app: FastifyInstance,
  services: EventStreamServices,
  options: EventStreamOptions,
  prefix: string,
): Promise<EventStreamHub> {
  const timings: StreamTimings = { ...DEFAULT_TIMINGS, ...options.timings };
  const limits: StreamLimits = { ...DEFAULT_LIMITS, ...options.limits };
  await registerWebSocketSupport(app, {
    maxPayloadBytes: options.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD,
    closeGraceMs: timings.closeGraceMs,
  });
  const hub = new EventStreamHub(services.bus, { timings, limits }, services.logger);
  app.decorate(EVENT_STREAM_DECORATOR, hub);
  const common: Omit<HandshakeRules, "access"> = {
    originAllowed: createOriginCheck(options.allowedOrigins),
    apiKeyHeader: options.apiKeyHeader ?? "X-API-Key",
    authenticate: options.authenticate ?? allowAnonymous,
    // Decided by the catalog's route-only entry, the same rules as every request; nothing recorded.
    authorize: (principal, authenticated, access) =>
      services.operations.admitStream(access.rule, {
        principal,
        authenticated,
        channel: "rest",
        route: access.route,
      }),
    logger: services.logger,
  };
  // The verdict is reached in a hook, before the upgrade, so that the handler runs synchronously
  // once the socket exists and no client frame can arrive before its listener is attached.
  const verdicts = new WeakMap<FastifyRequest, HandshakeVerdict>();
  const events = (types: ReadonlySet<string> | null): StreamRoute["open"] => {
    return (socket, identity) => {
      hub.open(socket, identity, types);
      return true;
    };
  };
  const routes: StreamRoute[] = [
    { url: EVENT_STREAM_PATH, rule: ROUTE_ONLY.eventStream, open: events(null) },
    { url: STATE_STREAM_PATH, rule: ROUTE_ONLY.stateStream, open: events(STATE_EVENT_TYPES) },
  ];
  const { fleet } = services;
  if (fleet) {
    routes.push({
      url: LOG_STREAM_PATH,
      rule: ROUTE_ONLY.logStream,
      open: (socket, _identity, request) => {
        const id = (request.params as { provider_id: string }).provider_id;
        const logs = fleet.logsOf(id);
        if (!logs) {
          refuse(socket, `McpServer not found: ${id}`, timings);
          return false;
        }
        followLogs(socket, id, logs);
        return true;
      },
    });
  }
  await app.register(
    async (api) => {
      for (const { url, open, rule } of routes) {
        const rules: HandshakeRules = { ...common, access: { route: `GET ${url}`, rule } };
        api.route({
          method: "GET",
          url,
          logSerializers: { req: describeRequest },
          preValidation: async (request) => {
            if (request.ws) verdicts.set(request, await judgeHandshake(request, rules));
          },
          // A plain GET, without the upgrade: 426 with the flat error body (RFC 9110 §15.5.22).
          handler: (_request, reply) =>
            sendError(
              reply.header("upgrade", "websocket"),
              new GatewayError("upgrade_required", UPGRADE_REQUIRED),
            ),
          wsHandler: (rawSocket, request) => {
            const socket = rawSocket as StreamSocket;
            const verdict = verdicts.get(request) ?? { ok: false, reason: "Handshake not evaluated" };
            verdicts.delete(request);
            if (!verdict.ok) {
              // Decisions: the upgrade is accepted and then closed, so the client can read the reason.
              refuse(socket, verdict.reason, timings);
              return;
            }
            const { principal, authenticated, tenantScope } = verdict;
            if (open(socket, { principal, authenticated, tenantScope }, request)) {
              closeWhenNoLongerAllowed(socket, request, rules, timings, tenantScope);
            }
          },
        });
      }
    },
    { prefix },
  );
  return hub;
}

/** One WebSocket path: what it asks of its caller, and what it does with an admitted socket. */
interface StreamRoute {
  readonly url: string;
  /** What it asks of its caller: its route-only entry of the catalog (`app/rest-routes.ts`). */
  readonly rule: AccessRule;
  /** Takes over the admitted socket; false when it refused it (and closed it) instead. */
  open(socket: StreamSocket, identity: StreamIdentity, request: FastifyRequest): boolean;
}

/** Closes a refused connection (1008, with the reason) once the upgrade is done. */
function refuse(socket: StreamSocket, reason: string, timings: StreamTimings): void {
  socket.close(CLOSE_POLICY_VIOLATION, closeReason(reason));
  setTimeout(() => socket.terminate(), timings.closeGraceMs).unref();
}

/**
 * Judges the handshake again every `recheckMs` from the request that opened the connection, and
 * closes the connection (1008, with the reason) once it would be refused: a revoked or expired
 * credential, `audit:read` lost, a JWT past its expiry; or once its grant confines it otherwise
 * than when it opened (a global grant narrowed to a tenant). Fails closed when the check itself
 * fails. A connection outlives no revocation by more than one interval.
 */
function closeWhenNoLongerAllowed(
  socket: StreamSocket,
  request: FastifyRequest,
  rules: HandshakeRules,
  timings: StreamTimings,
  openedScope: string | null,
): void {
  const close = (reason: string) => {
    clearInterval(timer);
    if (socket.readyState === SOCKET_CLOSED) return;
    socket.close(CLOSE_POLICY_VIOLATION, closeReason(reason));
    setTimeout(() => socket.terminate(), timings.closeGraceMs).unref();
  };
  const timer = setInterval(() => {
    judgeHandshake(request, rules, "recheck").then(
      (verdict) => {
        if (!verdict.ok) close(verdict.reason);
        else if (verdict.tenantScope !== openedScope) close(SCOPE_CHANGED);
      },
      () => close(SCOPE_CHANGED),
    );
  }, timings.recheckMs);
  timer.unref();
  socket.on("close", () => clearInterval(timer));
}

/**
 * The request as the log shows it: fastify's default fields, with the value of `?token=` (a
 * credential browsers must put in the URL) replaced so that it never reaches a log line.
 */
function describeRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactToken(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

export function redactToken(url: string): string {
  return url.replace(/([?&]token=)[^&#]*/g, "$1[REDACTED]");
}

interface SocketServer {
  readonly clients: Set<StreamSocket & { once(event: "close", listener: () => void): unknown }>;
  close(callback: () => void): void;
}

/**
 * Registers `@fastify/websocket` on the root instance unless already there. Its shutdown hook is
 * replaced so that closing the application closes every socket with 1001 (going away) rather than
 * with no code, and destroys those whose peer does not answer within `closeGraceMs`.
 */
export async function registerWebSocketSupport(
  app: FastifyInstance,
  settings: { maxPayloadBytes: number; closeGraceMs: number },
): Promise<void> {
  if (app.hasDecorator("websocketServer")) return;
  await app.register(fastifyWebsocket, {
    options: { maxPayload: settings.maxPayloadBytes },
    preClose: async () => {
      const server = app.getDecorator<SocketServer>("websocketServer");
      await Promise.all(
        [...server.clients].map(
          (client) =>
            new Promise<void>((resolve) => {
              if (client.readyState === SOCKET_CLOSED) {
                resolve();
                return;
              }
              const timer = setTimeout(() => {
                client.terminate();
                resolve();
              }, settings.closeGraceMs);
              client.once("close", () => {
                clearTimeout(timer);
                resolve();
              });
              client.close(CLOSE_GOING_AWAY, SHUTDOWN_REASON);
            }),
        ),
      );
      await new Promise<void>((resolve) => server.close(resolve));
    },
  });
}
