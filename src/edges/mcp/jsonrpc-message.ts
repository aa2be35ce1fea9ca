import {
  type InitializeRequest,
  isInitializeRequest,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type RequestId,
  specTypeSchemas,
} from "@modelcontextprotocol/server";
import { isPlainJsonRpc, isPlainPayload } from "../../domain/plain-json-rpc.js";

/** The keys a JSON-RPC request may have (the SDK's request schema is strict). */
const REQUEST_KEYS = new Set(["jsonrpc", "id", "method", "params"]);

/**
 * Whether `message` is an `initialize` request: its method first, then the SDK's schema (which
 * costs a failed parse for every other message, the price of most requests on the hot path).
 */
export function isInitialize(message: unknown): message is InitializeRequest {
  return (message as { method?: unknown } | null)?.method === "initialize" && isInitializeRequest(message);
}

/** The SDK's schema of a JSON-RPC message (zod, and so checked synchronously). */
const messageSchema = specTypeSchemas.JSONRPCMessage["~standard"];

/**
 * One message of a POST body as the SDK's JSON-RPC message schema reads it, or null when it is not
 * a JSON-RPC message. Plain requests and notifications (no `_meta` and no own `__proto__` key in
 * their params: the parts the schema could change) are checked in place, which is what nearly every
 * message is; anything else goes through the schema.
 */
export function readMessage(item: unknown): JSONRPCMessage | null {
  if (isPlainRequest(item)) return item;
  const checked = messageSchema.validate(item);
  if (checked instanceof Promise || checked.issues) return null;
  return checked.value as JSONRPCMessage;
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

/**
 * The id of a parsed message that is refused whole, when it has a usable one (a string, or a finite
 * number), so that the error answers that request; otherwise (a batch, no id) null.
 */
export function readableRequestId(value: unknown): RequestId | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const id = (value as { id?: unknown }).id;
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : null;
}

/** The request a well-formed outgoing message answers, if it is a response that names one. */
export function answeredRequest(message: JSONRPCMessage): RequestId | undefined {
  if ("method" in message || !("result" in message || "error" in message)) return undefined;
  return message.id;
}

/**
 * The JSON text of an outgoing message. The serializer recurses, so a value relayed from an MCP
 * server nested a few thousand levels deep exhausts the stack: an answer that cannot be serialized
 * becomes an internal error answering the same request (its client would otherwise wait forever);
 * any other message throws, which refuses a server-initiated request and drops a notification.
 */
export function messageText(message: JSONRPCMessage): string {
  try {
    return JSON.stringify(message);
  } catch (error) {
    const id = answeredRequest(message);
    if (!(error instanceof RangeError) || id === undefined)
      throw new Error("the message cannot be serialized");
    return JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32603, message: UNSENDABLE } });
  }
}

const UNSENDABLE = "Internal error: the answer nests too deeply to be sent";
