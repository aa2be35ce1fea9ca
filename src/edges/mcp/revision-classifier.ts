import {
  classifyInboundRequest,
  type InboundClassificationOutcome,
  type InboundHttpRequest,
  type JSONRPCRequest,
} from "@modelcontextprotocol/server";
import { STATELESS_META, STATELESS_REVISION } from "../../domain/stateless-revision.js";

/** The keys of a JSON-RPC request (the SDK's request schema is strict). */
const REQUEST_KEYS = new Set(["jsonrpc", "id", "method", "params"]);
/** The `_meta` keys a request may carry and still be classified here (the SDK's schemas type them). */
const META_KEYS = new Set<string>([
  STATELESS_META.protocolVersion,
  STATELESS_META.clientInfo,
  STATELESS_META.clientCapabilities,
  STATELESS_META.logLevel,
  "progressToken",
]);
/** Envelopes the SDK found valid, by their text; emptied when it reaches this many. */
const MAX_KNOWN_ENVELOPES = 1000;
/** Longest envelope text remembered (a client's is a few hundred characters): at most ~4 MB kept. */
const MAX_ENVELOPE_LENGTH = 4096;

/**
 * The SDK's `classifyInboundRequest`, with its answer for the common case given at once: a plain
 * `tools/call` (or any request but `initialize`) of revision 2026-07-28 whose envelope (client
 * info, capabilities, log level) the SDK already found valid on an earlier request.
 *
 * The SDK tries every body as a JSON-RPC response first, two failed schema parses per request,
 * and checks the envelope's capabilities and client info against their schemas again each time:
 * about 15 µs of a stateless call, measured, where a client sends the same envelope on every
 * request. Everything the SDK's answer depends on is checked here (the request's shape by the
 * rules of its strict schema, the headers equal to the body, the envelope by its text); anything
 * else, and the first request of each envelope, goes to the SDK, whose answer is then remembered.
 * A unit test runs both on the same requests.
 */
export class RevisionClassifier {
  private readonly knownEnvelopes = new Set<string>();

  classify(request: InboundHttpRequest): InboundClassificationOutcome {
    const envelope = this.envelopeOf(request);
    if (envelope !== undefined && this.knownEnvelopes.has(envelope)) {
      return {
        kind: "modern",
        messageKind: "request",
        message: request.body as JSONRPCRequest,
        classification: { era: "modern", revision: STATELESS_REVISION },
      };
    }
    const outcome = classifyInboundRequest(request);
    if (envelope !== undefined && outcome.kind === "modern" && outcome.messageKind === "request") {
      if (this.knownEnvelopes.size >= MAX_KNOWN_ENVELOPES) this.knownEnvelopes.clear();
      this.knownEnvelopes.add(envelope);
    }
    return outcome;
  }

  /**
   * The text of the request's envelope when everything else the SDK's answer depends on makes it
   * a modern request (so that the envelope alone decides); undefined otherwise.
   */
  private envelopeOf(request: InboundHttpRequest): string | undefined {
    const body = request.body;
    if (request.httpMethod !== "POST" || !isPlainObject(body)) return undefined;
    for (const key in body) if (!REQUEST_KEYS.has(key)) return undefined;
    const { id, method, params } = body;
    if (body.jsonrpc !== "2.0" || typeof method !== "string" || method === "initialize") return undefined;
    if (typeof id !== "string" && !Number.isSafeInteger(id)) return undefined;
    if (!isPlainObject(params) || !isPlainObject(params._meta)) return undefined;
    const meta = params._meta;
    for (const key in meta) if (!META_KEYS.has(key)) return undefined;
    const token = meta.progressToken;
    if (token !== undefined && typeof token !== "string" && !Number.isSafeInteger(token)) return undefined;
    if (meta[STATELESS_META.protocolVersion] !== STATELESS_REVISION) return undefined;
    const { protocolVersionHeader, mcpMethodHeader } = request;
    if (protocolVersionHeader !== undefined && protocolVersionHeader !== STATELESS_REVISION) return undefined;
    if (mcpMethodHeader !== undefined && mcpMethodHeader !== method) return undefined;
    // An absent key is left out of the text, and so told from one that is null. A number JSON has
    // no text for (`1e999` reads as Infinity) is written as null: only a text holding a null is
    // looked through for one, which leaves the request to the SDK (a replacer on every request
    // would cost more than the rest of this check).
    const envelope = {
      info: meta[STATELESS_META.clientInfo],
      capabilities: meta[STATELESS_META.clientCapabilities],
      logLevel: meta[STATELESS_META.logLevel],
    };
    const text = JSON.stringify(envelope);
    const exact = !text.includes("null") || allFinite(envelope);
    return exact && text.length <= MAX_ENVELOPE_LENGTH ? text : undefined;
  }
}

/** Whether every number in `value` (plain JSON: objects, arrays, scalars) is finite. */
function allFinite(value: unknown): boolean {
  if (typeof value === "number") return Number.isFinite(value);
  if (typeof value !== "object" || value === null) return true;
  for (const item of Object.values(value)) if (!allFinite(item)) return false;
  return true;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
