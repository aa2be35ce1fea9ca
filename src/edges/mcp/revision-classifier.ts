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
/** Envelopes remembered; all are forgotten when a new one would make this many. */
const MAX_KNOWN_ENVELOPES = 1000;
/** Envelopes remembered per client name; the oldest is forgotten for a new one. */
const MAX_ENVELOPES_PER_NAME = 8;
/** Largest envelope remembered, in JSON values (a client's has a few dozen): at most ~5 MB kept. */
const MAX_ENVELOPE_VALUES = 128;

/** What the SDK's answer depends on in a request's `_meta`, besides the protocol version. */
interface Envelope {
  readonly info: unknown;
  readonly capabilities: unknown;
  readonly logLevel: unknown;
}

/**
 * The SDK's `classifyInboundRequest`, with its answer for the common case given at once: a plain
 * `tools/call` (or any request but `initialize`) of revision 2026-07-28 whose envelope (client
 * info, capabilities, log level) the SDK already found valid on an earlier request.
 *
 * The SDK tries every body as a JSON-RPC response first, two failed schema parses per request,
 * and checks the envelope's capabilities and client info against their schemas again each time:
 * about 15 µs of a stateless call, measured, where a client sends the same envelope on every
 * request. Everything the SDK's answer depends on is checked here (the request's shape by the
 * rules of its strict schema, the headers equal to the body, the envelope by its value); anything
 * else, and the first request of each envelope, goes to the SDK, whose answer is then remembered.
 * A unit test runs both on the same requests.
 */
export class RevisionClassifier {
  /** Envelopes the SDK found valid, by the client name they carry ("" for none). */
  private readonly knownEnvelopes = new Map<unknown, Envelope[]>();
  private knownCount = 0;

  classify(request: InboundHttpRequest): InboundClassificationOutcome {
    const envelope = this.envelopeOf(request);
    if (envelope !== undefined && this.knows(envelope)) {
      return {
        kind: "modern",
        messageKind: "request",
        message: request.body as JSONRPCRequest,
        classification: { era: "modern", revision: STATELESS_REVISION },
      };
    }
    const outcome = classifyInboundRequest(request);
    if (envelope !== undefined && outcome.kind === "modern" && outcome.messageKind === "request") {
      this.remember(envelope);
    }
    return outcome;
  }

  private knows(envelope: Envelope): boolean {
    const known = this.knownEnvelopes.get(clientName(envelope));
    if (known === undefined) return false;
    for (const candidate of known) {
      if (
        candidate.logLevel === envelope.logLevel &&
        sameJson(candidate.info, envelope.info) &&
        sameJson(candidate.capabilities, envelope.capabilities)
      )
        return true;
    }
    return false;
  }

  /** Keeps a copy (the request's objects are not this class's to keep), unless it is too large. */
  private remember(envelope: Envelope): void {
    if (jsonValues(envelope, MAX_ENVELOPE_VALUES) > MAX_ENVELOPE_VALUES) return;
    const name = clientName(envelope);
    if (this.knownCount >= MAX_KNOWN_ENVELOPES) {
      this.knownEnvelopes.clear();
      this.knownCount = 0;
    }
    let known = this.knownEnvelopes.get(name);
    if (known === undefined) {
      known = [];
      this.knownEnvelopes.set(name, known);
    }
    if (known.length >= MAX_ENVELOPES_PER_NAME) {
      known.shift();
      this.knownCount--;
    }
    known.push(structuredClone(envelope));
    this.knownCount++;
  }

  /**
   * The request's envelope when everything else the SDK's answer depends on makes it a modern
   * request (so that the envelope alone decides); undefined otherwise.
   */
  private envelopeOf(request: InboundHttpRequest): Envelope | undefined {
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
    return {
      info: meta[STATELESS_META.clientInfo],
      capabilities: meta[STATELESS_META.clientCapabilities],
      logLevel: meta[STATELESS_META.logLevel],
    };
  }
}

function clientName(envelope: Envelope): unknown {
  const name = (envelope.info as { name?: unknown } | null | undefined)?.name;
  return typeof name === "string" ? name : "";
}

/**
 * Whether two values parsed from JSON are the same JSON: the same scalars (a number JSON has no
 * text for, `1e999`, is Infinity and equals only Infinity), arrays of the same items, objects of the
 * same own keys (in any order) with the same values. Allocates nothing.
 */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  let keys = 0;
  for (const key in left) {
    if (!Object.hasOwn(right, key) || !sameJson(left[key], right[key])) return false;
    keys++;
  }
  for (const _ in right) keys--;
  return keys === 0;
}

/** How many JSON values `value` holds, itself included, counted up to a little past `limit`. */
function jsonValues(value: unknown, limit: number): number {
  if (typeof value !== "object" || value === null) return 1;
  let count = 1;
  for (const item of Object.values(value)) {
    count += jsonValues(item, limit - count);
    if (count > limit) break;
  }
  return count;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
