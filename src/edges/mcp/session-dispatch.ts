import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { MessageExtraInfo } from "@modelcontextprotocol/sdk/types.js";
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
