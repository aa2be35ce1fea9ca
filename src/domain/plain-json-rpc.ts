import { isPlainJsonObject } from "./plain-json-object.js";

/**
 * A parsed JSON-RPC 2.0 message with only the given keys, whose `id`, when present, is a string or
 * a safe integer: what the MCP SDK's strict message schemas accept and would not change (the
 * caller checks the rest of its kind of message).
 */
export function isPlainJsonRpc(value: unknown, keys: ReadonlySet<string>): value is Record<string, unknown> {
  if (!isPlainJsonObject(value)) return false;
  for (const key in value) if (!keys.has(key)) return false;
  if (value.jsonrpc !== "2.0") return false;
  return !("id" in value) || typeof value.id === "string" || Number.isSafeInteger(value.id);
}

/** Parameters or a result the SDK's schemas would pass as they are: plain, and without `_meta`. */
export function isPlainPayload(value: unknown): boolean {
  return isPlainJsonObject(value) && !("_meta" in value);
}
