import { ProtocolErrorCode, type RequestId, type Transport } from "@modelcontextprotocol/server";
import type { Tracer } from "../../app/ports/tracer.js";
import type { FrontDoorRequestHandler } from "./front-door/server.js";
import { traceRequests } from "./traced-requests.js";
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
  traceRequests(transport, tracer);
  const running = new Map<RequestId, AbortController>();
  // The client left, or the gateway closes: what still runs stops, as the SDK's server stops its
  // handlers when its transport closes.
  transport.onclose = () => {
    for (const controller of running.values()) controller.abort(new Error("Connection closed"));
  };
  transport.onmessage = (message) => {
    if (!("method" in message)) return;
    if (!("id" in message)) {
      if (message.method === "notifications/cancelled") {
        const { requestId, reason } = (message.params ?? {}) as { requestId?: RequestId; reason?: unknown };
        if (requestId !== undefined) running.get(requestId)?.abort(reason);
      }
      return;
    }
    const id = message.id;
    const controller = new AbortController();
    running.set(id, controller);
    const scope = {
      id,
      signal: controller.signal,
      headers: transportHeaders(transport, id),
      clientCapabilities: undefined,
      notify: (notification: { method: string; params?: Record<string, unknown> }) =>
        transport.send({ jsonrpc: "2.0", ...notification }, { relatedRequestId: id }),
    };
    handler(message, scope)
      .then(
        (result) => (controller.signal.aborted ? undefined : transport.send({ jsonrpc: "2.0", id, result })),
        (error: unknown) =>
          controller.signal.aborted
            ? undefined
            : transport.send({ jsonrpc: "2.0", id, error: answerOf(error) }),
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
