import {
  type JSONRPCMessage,
  ProtocolErrorCode,
  type RequestId,
  type Transport,
} from "@modelcontextprotocol/server";
import type { RequestSpan, Tracer } from "../../app/ports/tracer.js";
import type { FrontDoorRequestHandler } from "./front-door/server.js";
import { answerOutcome, startRequestSpan } from "./traced-requests.js";
import { transportHeaders } from "./transport-headers.js";

/**
 * Serves the requests `transport` delivers with `handler`, as the SDK's `Server` dispatches them to
 * a request handler, without one: a stateless `tools/call` is the only request its server would
 * serve, and making, connecting and closing that server (with the SDK's schema checks of each
 * message it reads) was most of what a stateless call cost beyond a session's.
 *
 * What the SDK's dispatch does for a request, this does alike (a unit test runs both on the same
 * requests): the handler gets a signal that `notifications/cancelled` aborts, and sends its
 * notifications along the request; its result answers the request, and a rejection answers with
 * the error's `code` (a safe integer, else -32603), `message` and `data`; an aborted request is not
 * answered. Responses from the client are not expected and are dropped.
 */
export function serveDirect(transport: Transport, handler: FrontDoorRequestHandler, tracer?: Tracer): void {
  const running = new Map<RequestId, { controller: AbortController; span: RequestSpan | undefined }>();
  // The client left, or the gateway closes: what still runs stops, as the SDK's server stops its
  // handlers when its transport closes.
  transport.onclose = () => {
    for (const { controller } of running.values()) controller.abort(new Error("Connection closed"));
  };
  transport.onmessage = (message) => {
    if (!("method" in message)) return;
    if (!("id" in message)) {
      if (message.method === "notifications/cancelled") {
        const { requestId, reason } = (message.params ?? {}) as { requestId?: RequestId; reason?: unknown };
        const cancelled = requestId === undefined ? undefined : running.get(requestId);
        cancelled?.span?.end({ errorType: "cancelled" });
        cancelled?.controller.abort(reason);
      }
      return;
    }
    const id = message.id;
    const controller = new AbortController();
    // The request's SERVER span, as `traceRequests` starts it for a server's transport.
    const span = startRequestSpan(message, transport, tracer);
    running.set(id, { controller, span });
    const answer = (reply: JSONRPCMessage) => {
      if (span) {
        const outcome = answerOutcome(reply);
        if (outcome) span.end(outcome);
      }
      return transport.send(reply);
    };
    const scope = {
      id,
      signal: controller.signal,
      headers: transportHeaders(transport, id),
      clientCapabilities: undefined,
      notify: (notification: { method: string; params?: Record<string, unknown> }) =>
        transport.send({ jsonrpc: "2.0", ...notification }, { relatedRequestId: id }),
    };
    const handled = span ? span.run(() => handler(message, scope)) : handler(message, scope);
    handled
      .then(
        (result) => (controller.signal.aborted ? undefined : answer({ jsonrpc: "2.0", id, result })),
        (error: unknown) =>
          controller.signal.aborted ? undefined : answer({ jsonrpc: "2.0", id, error: answerOf(error) }),
      )
      .catch(() => undefined)
      .finally(() => running.delete(id));
  };
}

/** The JSON-RPC error answering a rejection, as the SDK writes it. */
function answerOf(error: unknown): { code: number; message: string; data?: unknown } {
  const { code, message, data } = (error ?? {}) as { code?: unknown; message?: unknown; data?: unknown };
  return {
    code: typeof code === "number" && Number.isSafeInteger(code) ? code : ProtocolErrorCode.InternalError,
    message: typeof message === "string" ? message : "Internal error",
    ...(data !== undefined && { data }),
  };
}
