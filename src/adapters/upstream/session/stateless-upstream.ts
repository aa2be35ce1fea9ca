import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/client";
import type { CallOptions, UpstreamPeer } from "../../../app/ports/upstream.js";
import {
  INPUT_REQUIRED_METHODS,
  STATELESS_META,
  STATELESS_REVISION,
  TASKS_EXTENSION,
} from "../../../domain/stateless-revision.js";
import type { DirectRequests } from "./direct-requests.js";

/**
 * An upstream of revision 2026-07-28 (stateless), as its `server/discover` described it: no
 * `initialize`; every request carries `envelope` in its `_meta` (the revision, the gateway's
 * `clientInfo` and `clientCapabilities`).
 */
export interface StatelessUpstream {
  readonly capabilities: Record<string, unknown>;
  readonly envelope: Readonly<Record<string, unknown>>;
}

/** The `_meta` envelope of the stateless revision for a client of this name and capabilities. */
export function statelessEnvelope(info: {
  name: string;
  version: string;
  capabilities?: Record<string, unknown> | undefined;
}): Record<string, unknown> {
  return {
    [STATELESS_META.protocolVersion]: STATELESS_REVISION,
    [STATELESS_META.clientInfo]: { name: info.name, version: info.version },
    [STATELESS_META.clientCapabilities]: info.capabilities ?? {},
  };
}

const CAPABILITIES = STATELESS_META.clientCapabilities;

/** Most `input_required` rounds of one request answered before it is given up. */
const MAX_INPUT_ROUNDS = 8;

/**
 * How long one `subscriptions/listen` stays open before it is opened again: a stream the upstream
 * ended without a word is noticed by then at the latest.
 */
const LISTEN_RENEW_MS = 10 * 60 * 1000;

/** The wait before a listen stream that failed is opened again. */
const LISTEN_RETRY_MS = 1_000;

type InputRequests = Record<string, { method: string; params?: Record<string, unknown> }>;

/**
 * The requests of the gateway's clients to an upstream of the stateless revision, which has no
 * session: each request carries the envelope and the log level; an `input_required` answer has
 * its `inputRequests` asked of the client through the peer (under the upstream's keys) and the
 * request sent again with the `inputResponses` and the upstream's `requestState`, until it
 * completes. What a session revision keeps on the session is kept here for every client of the
 * upstream alike, as a session with the upstream would keep it: `logging/setLevel` sets the level
 * each request then names (`debug` until set: every message, as a session sends before it is
 * set), and `resources/subscribe` / `unsubscribe` change what one `subscriptions/listen` stream to
 * the upstream carries, beside its list changes; what that stream carries reaches the peer as the
 * session's notifications would.
 */
export class StatelessUpstreamLane {
  private logLevel = "debug";
  private readonly subscribed = new Set<string>();
  private listening: AbortController | undefined;
  private closed = false;
  private renewTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly direct: DirectRequests,
    private readonly upstream: StatelessUpstream,
    private readonly peer: () => UpstreamPeer | null,
  ) {
    if (this.listChanges()) this.listen();
  }

  /** Answers what this lane keeps itself (the log level, resource subscriptions); undefined otherwise. */
  local(method: string, params: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
    switch (method) {
      case "logging/setLevel":
        if (typeof params?.level === "string") this.logLevel = params.level;
        return {};
      case "resources/subscribe":
      case "resources/unsubscribe": {
        const uri = String(params?.uri);
        const changed =
          method === "resources/subscribe" ? !this.subscribed.has(uri) : this.subscribed.has(uri);
        if (method === "resources/subscribe") this.subscribed.add(uri);
        else this.subscribed.delete(uri);
        if (changed) this.listen();
        return {};
      }
      default:
        return undefined;
    }
  }

  /** One request; rejects with the upstream's error or the lane's as `DirectRequests` raises them. */
  async request(
    method: string,
    params: Record<string, unknown> | undefined,
    options: CallOptions,
  ): Promise<unknown> {
    let sent = params;
    for (let round = 0; ; round++) {
      const result = await this.direct.request(method, this.enveloped(sent, options), options);
      const asked = inputRequired(result);
      if (!asked || !INPUT_REQUIRED_METHODS.has(method)) return result;
      if (round >= MAX_INPUT_ROUNDS) {
        throw new ProtocolError(
          ProtocolErrorCode.InternalError,
          `The upstream asked for input more than ${MAX_INPUT_ROUNDS} times`,
        );
      }
      const inputResponses = await this.askClient(asked.inputRequests, options);
      sent = {
        ...params,
        inputResponses,
        ...(asked.requestState !== undefined && { requestState: asked.requestState }),
      };
    }
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.renewTimer);
    this.listening?.abort();
  }

  /**
   * `params` with the envelope and the log level in its `_meta`. The client capabilities declared
   * are those of the client the request came from that the gateway relays (`options`), else all
   * the gateway relays.
   */
  private enveloped(
    params: Record<string, unknown> | undefined,
    options?: CallOptions,
  ): Record<string, unknown> {
    const meta = params?._meta as Record<string, unknown> | undefined;
    const envelope: Record<string, unknown> = {
      ...this.upstream.envelope,
      [STATELESS_META.logLevel]: this.logLevel,
    };
    const client = options?.clientCapabilities;
    if (client) envelope[CAPABILITIES] = declared(client, (envelope[CAPABILITIES] ?? {}) as Capabilities);
    return { ...params, _meta: { ...meta, ...envelope } };
  }

  /**
   * Asks the client each input request of a round, all at once: the client the request came from
   * (`options.askClient`), else through the peer.
   */
  private async askClient(requests: InputRequests, options: CallOptions): Promise<Record<string, unknown>> {
    const peer = this.peer();
    const ask = options.askClient ?? (peer ? peer.request.bind(peer) : undefined);
    if (!ask)
      throw new ProtocolError(
        ProtocolErrorCode.MethodNotFound,
        "The upstream asked for input no client can give",
      );
    const signal = options.signal ?? new AbortController().signal;
    const answers = await Promise.all(
      Object.entries(requests).map(async ([key, request]) => [
        key,
        await ask(request.method, request.params, signal, key),
      ]),
    );
    return Object.fromEntries(answers);
  }

  /** The list changes the upstream declares it announces, as `subscriptions/listen` names them. */
  private listChanges(): Record<string, true> {
    const capabilities = this.upstream.capabilities as Record<string, { listChanged?: unknown } | undefined>;
    const changes: Record<string, true> = {};
    if (capabilities.tools?.listChanged) changes.toolsListChanged = true;
    if (capabilities.prompts?.listChanged) changes.promptsListChanged = true;
    if (capabilities.resources?.listChanged) changes.resourcesListChanged = true;
    return changes;
  }

  /**
   * (Re)opens the one listen stream for the list changes and the resources subscribed now, in place
   * of the one open; none when there is nothing to listen for. Opened again when it ends, and
   * renewed every {@link LISTEN_RENEW_MS}.
   */
  private listen(): void {
    this.listening?.abort();
    this.listening = undefined;
    clearTimeout(this.renewTimer);
    const notifications = {
      ...this.listChanges(),
      ...(this.subscribed.size > 0 && { resourceSubscriptions: [...this.subscribed] }),
    };
    if (this.closed || Object.keys(notifications).length === 0) return;
    const stream = new AbortController();
    this.listening = stream;
    const renew = () => {
      if (this.listening === stream && !this.closed) this.listen();
    };
    this.renewTimer = setTimeout(renew, LISTEN_RENEW_MS);
    this.renewTimer.unref();
    this.direct
      .request("subscriptions/listen", this.enveloped({ notifications }), {
        signal: stream.signal,
        timeoutMs: LISTEN_RENEW_MS * 2,
      })
      .catch(() => undefined)
      .then(() => {
        if (this.listening !== stream || this.closed || stream.signal.aborted) return;
        clearTimeout(this.renewTimer);
        this.renewTimer = setTimeout(renew, LISTEN_RETRY_MS);
        this.renewTimer.unref();
      });
  }
}

/** The `inputRequests` and `requestState` of an `input_required` answer; undefined for any other. */
function inputRequired(result: unknown): { inputRequests: InputRequests; requestState?: string } | undefined {
  const answer = result as { resultType?: unknown; inputRequests?: unknown; requestState?: unknown } | null;
  if (answer?.resultType !== "input_required") return undefined;
  const requests = answer.inputRequests;
  return {
    inputRequests: typeof requests === "object" && requests !== null ? (requests as InputRequests) : {},
    ...(typeof answer.requestState === "string" && { requestState: answer.requestState }),
  };
}

/** How an upstream's revision is chosen: a session (`initialize`), the stateless one, or by probing. */
export type RevisionChoice = "session" | "stateless" | "auto";

/** The longest a revision probe may take before the upstream is taken for a session-only one. */
export const PROBE_TIMEOUT_MS = 5_000;

/**
 * What `server/discover` answers, sent through `lane` on a transport already started, when it
 * offers the stateless revision; undefined for any other answer, an error or no answer within
 * `timeoutMs`. Through the lane rather than the SDK client: the client reads a `server/discover`
 * answer as the 2026-07-28 revision defines it (a `resultType`, the full result schema) and would
 * refuse answers this probe accepts.
 */
export async function discoverStateless(
  lane: DirectRequests,
  envelope: Readonly<Record<string, unknown>>,
  timeoutMs: number,
): Promise<StatelessUpstream | undefined> {
  let result: unknown;
  try {
    result = await lane.request(
      "server/discover",
      { _meta: { ...envelope } },
      { timeoutMs: Math.min(timeoutMs, PROBE_TIMEOUT_MS) },
    );
  } catch {
    return undefined;
  }
  const answer = typeof result === "object" && result !== null && !Array.isArray(result) ? result : undefined;
  return offeredStateless(answer as Record<string, unknown> | undefined, envelope);
}

/** The upstream a `server/discover` result describes, when it offers the stateless revision. */
export function offeredStateless(
  result: Record<string, unknown> | undefined,
  envelope: Readonly<Record<string, unknown>>,
): StatelessUpstream | undefined {
  const versions = Array.isArray(result?.supportedVersions) ? result.supportedVersions : [];
  if (!versions.includes(STATELESS_REVISION)) return undefined;
  const capabilities = result?.capabilities;
  return {
    capabilities:
      typeof capabilities === "object" && capabilities !== null
        ? (capabilities as Record<string, unknown>)
        : {},
    envelope,
  };
}

type Capabilities = Record<string, unknown>;

/**
 * What a client declared that the gateway relays (`relayed`): its capabilities of the names the
 * gateway declares, and the extensions it declared that the gateway relays for it (the front door
 * passes the tasks extension only while it relays tasks; a request of no client declares none).
 */
function declared(client: Capabilities, relayed: Capabilities): Capabilities {
  const kept: Capabilities = {};
  for (const [name, value] of Object.entries(client)) {
    if (name === "extensions") {
      const extensions = isObject(value) ? relayedExtensions(value) : undefined;
      if (extensions) kept.extensions = extensions;
    } else if (relayed[name] !== undefined) kept[name] = value;
  }
  return kept;
}

/** The client's extensions the gateway relays, or undefined when none is. */
function relayedExtensions(extensions: Capabilities): Capabilities | undefined {
  const task = extensions[TASKS_EXTENSION];
  return task === undefined ? undefined : { [TASKS_EXTENSION]: task };
}

function isObject(value: unknown): value is Capabilities {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
