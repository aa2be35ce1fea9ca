import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ErrorCode, type MessageExtraInfo } from "@modelcontextprotocol/sdk/types.js";
import type { SessionTransport } from "./session-transport.js";

/** The SDK `Protocol`'s own handlers of one incoming message of each kind (private members). */
interface ProtocolHandlers {
  _onrequest: (message: unknown, extra?: MessageExtraInfo) => void;
  _onnotification: (message: unknown) => void;
  _onresponse: (message: unknown) => void;
}

/**
 * Connects `server` to a session transport and hands it each message by its shape.
 *
 * The SDK's `Protocol` tells a request from a response or a notification by parsing every incoming
 * message with up to three zod schemas, two of which fail for every request (a failed parse builds
 * its issues). A {@link SessionTransport} passes on only messages it has already read as JSON-RPC
 * (`readMessage`) or made itself, so the kind follows from which members the message has, and the
 * message goes straight to the `Protocol`'s handler of that kind. The handlers are private members
 * of the SDK's `Protocol`: should a later SDK not have them, the SDK's own dispatch stays in place.
 */
export async function connectSession(server: Server, transport: SessionTransport): Promise<void> {
  answerInvalidParams(server);
  await server.connect(transport);
  const handlers = server as unknown as Partial<ProtocolHandlers>;
  const { _onrequest, _onnotification, _onresponse } = handlers;
  if (
    typeof _onrequest !== "function" ||
    typeof _onnotification !== "function" ||
    typeof _onresponse !== "function"
  ) {
    return;
  }
  transport.onmessage = (message, extra) => {
    if (!("method" in message)) _onresponse.call(server, message);
    else if ("id" in message) _onrequest.call(server, message, extra);
    else _onnotification.call(server, message);
  };
}

type RequestHandler = (request: unknown, extra: unknown) => Promise<unknown>;

/**
 * Answers a request whose params the SDK's schema for its method refuses (a `tools/call` without
 * `name`, an `initialize` without `protocolVersion`) with JSON-RPC -32602 "Invalid params" naming
 * the first field and rule, instead of the SDK's -32603 carrying the schema library's issue dump.
 * The handlers are a private member of the SDK's `Protocol`; without it nothing changes.
 */
export function answerInvalidParams(server: Server): void {
  const handlers = (server as unknown as { _requestHandlers?: unknown })._requestHandlers;
  if (!(handlers instanceof Map)) return;
  for (const [method, handler] of handlers as Map<string, RequestHandler>) {
    handlers.set(method, (request: unknown, extra: unknown) => {
      // The SDK checks the params before the handler runs and throws at once; what the handler
      // itself rejects with (an upstream's bad answer, say) is its own error and goes on unchanged.
      try {
        return handler(request, extra);
      } catch (error) {
        throw invalidParams(error) ?? error;
      }
    });
  }
}

/** A JSON-RPC error as the SDK writes it: its `code` and `message` as they are. */
function invalidParams(error: unknown): Error | undefined {
  if (!(error instanceof Error) || (error.name !== "ZodError" && error.name !== "$ZodError"))
    return undefined;
  const issue = (error as { issues?: { path?: PropertyKey[]; message?: string }[] }).issues?.[0];
  const path = (issue?.path ?? []).filter((key) => key !== "params").join(".");
  const message = `Invalid params: ${path || "params"}: ${issue?.message ?? "invalid"}`;
  return Object.assign(new Error(message), { code: ErrorCode.InvalidParams });
}
