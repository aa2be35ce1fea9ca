import {
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  type JSONRPCRequest,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import { isPlainJsonRpc, isPlainPayload } from "../../domain/plain-json-rpc.js";

/** The keys a JSON-RPC request may have (the SDK's request schema is strict). */
const REQUEST_KEYS = new Set(["jsonrpc", "id", "method", "params"]);

/**
 * One message of a POST body as the SDK's `JSONRPCMessageSchema` reads it, or null when it is not
 * a JSON-RPC message. Plain requests and notifications (no `_meta` and no own `__proto__` key in
 * their params: the parts the schema could change) are checked in place, which is what nearly every
 * message is; anything else goes through the schema.
 */
export function readMessage(item: unknown): JSONRPCMessage | null {
  if (isPlainRequest(item)) return item;
  const parsed = JSONRPCMessageSchema.safeParse(item);
  return parsed.success ? parsed.data : null;
}

function isPlainRequest(message: unknown): message is JSONRPCMessage {
  if (!isPlainJsonRpc(message, REQUEST_KEYS) || typeof message.method !== "string") return false;
  const params = message.params;
  return params === undefined ? !("params" in message) : isPlainPayload(params);
}

/** A message read by {@link readMessage} that expects an answer. */
export function isRequestMessage(message: JSONRPCMessage): message is JSONRPCRequest {
  return "method" in message && "id" in message;
}

/** The request a well-formed outgoing message answers, if it is a response that names one. */
export function answeredRequest(message: JSONRPCMessage): RequestId | undefined {
  if ("method" in message || !("result" in message || "error" in message)) return undefined;
  return message.id;
}
