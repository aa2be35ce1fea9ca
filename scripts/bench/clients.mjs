// MCP clients of the benchmark: the SDK's Client over streamable HTTP (every HTTP target) or stdio
// (the upstream on its own). Every target is driven by the same client code.
import {
  Client as StatelessClient,
  StreamableHTTPClientTransport as StatelessTransport,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const CLIENT_INFO = { name: "airlock-bench", version: "1.0.0" };

/** Per-request timeout: far above any expected latency, so only a hung call trips it. */
const REQUEST_TIMEOUT_MS = 30_000;

/** The text every call echoes; the answer must carry it back unchanged. */
export const ECHO_TEXT = "hello";

/**
 * Request options of one call. Each call gets its own AbortController: the SDK's HTTP client adds
 * an abort listener per request to the signal it is given, which leaks on a shared one (Node 20).
 */
function requestOptions() {
  return { signal: new AbortController().signal, timeout: REQUEST_TIMEOUT_MS };
}

/**
 * `fetch` for the HTTP transport, giving each request its own signal too. The transport hands
 * every request the one signal of its own AbortController, and Node 20's fetch adds an abort
 * listener to it per request that goes only when the request is garbage-collected: thousands
 * accumulate on a long session (Node warns past 1,500), and adding one costs more as they grow.
 * Here the transport's signal still aborts the request (its listener is removed once the answer
 * has arrived).
 */
function fetchWithOwnSignal(url, init) {
  const shared = init?.signal;
  if (!shared) return fetch(url, init);
  const own = new AbortController();
  const abort = () => own.abort(shared.reason);
  if (shared.aborted) abort();
  else shared.addEventListener("abort", abort, { once: true });
  return fetch(url, { ...init, signal: own.signal }).finally(() =>
    shared.removeEventListener("abort", abort),
  );
}

/** The call of a target: `echo` by its own name, or through `gateway_call` (egress). */
export const CALLS = {
  direct: {
    request: { name: "echo", arguments: { text: ECHO_TEXT } },
    ok: (result) => result.isError !== true && result.content?.[0]?.text === ECHO_TEXT,
  },
  egress: {
    request: {
      name: "gateway_call",
      arguments: { calls: [{ mcp_server: "echo", tool: "echo", arguments: { text: ECHO_TEXT } }] },
    },
    ok: (result) => {
      const payload = result.isError === true ? null : parsePayload(result);
      return payload?.success === true && payload.results?.[0]?.result?.content?.[0]?.text === ECHO_TEXT;
    },
  },
};

function session(client, close) {
  return {
    /** Calls a tool; resolves to the SDK's result. */
    callTool: (name, args) => client.callTool({ name, arguments: args }, undefined, requestOptions()),
    /** One call of the given kind (`CALLS.direct` or `CALLS.egress`); resolves to true on success. */
    async call(kind) {
      return kind.ok(await client.callTool(kind.request, undefined, requestOptions()));
    },
    listTools: () => client.listTools(undefined, requestOptions()),
    close,
  };
}

/** One MCP session with a streamable-HTTP endpoint; `headers` go with every request. */
export async function connectHttp(url, headers = {}) {
  const client = new Client(CLIENT_INFO);
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers },
    fetch: fetchWithOwnSignal,
  });
  await client.connect(transport);
  return session(client, async () => {
    await transport.terminateSession().catch(() => {});
    await client.close();
  });
}

/**
 * A client of MCP revision 2026-07-28 (the SDK v2 client pinned to it): no session, every call its
 * own POST carrying `_meta` and the mirrored headers. Same calls, same checks as `connectHttp`.
 */
export function connectStateless(url, headers = {}) {
  return connectModern(url, headers, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
}

/**
 * The SDK v2 client on a session of MCP 2025-11-25 (its default negotiation): the same client as
 * `connectStateless`, at the session revision, to tell the client's share of a difference between
 * the two revisions from the gateway's.
 */
export function connectModernSession(url, headers = {}) {
  return connectModern(url, headers, {});
}

/** The SDK v2 client connected with `options`; a session it opened is ended on close. */
async function connectModern(url, headers, options) {
  const client = new StatelessClient(CLIENT_INFO, options);
  const transport = new StatelessTransport(new URL(url), {
    requestInit: { headers },
    fetch: fetchWithOwnSignal,
  });
  await client.connect(transport);
  return {
    callTool: (name, args) => client.callTool({ name, arguments: args }, requestOptions()),
    async call(kind) {
      return kind.ok(await client.callTool(kind.request, requestOptions()));
    },
    listTools: () => client.listTools(undefined, requestOptions()),
    async close() {
      if (transport.sessionId !== undefined) await transport.terminateSession().catch(() => {});
      await client.close();
    },
  };
}

/** The upstream spoken to over stdio by a client that spawns it. */
export async function connectStdio(command, args) {
  const client = new Client(CLIENT_INFO);
  const transport = new StdioClientTransport({ command, args, stderr: "ignore" });
  await client.connect(transport);
  const handle = session(client, () => client.close());
  return { ...handle, pid: transport.pid };
}

/** The JSON payload of a result's first text block, or null. */
export function parsePayload(result) {
  const text = result.content?.[0]?.text;
  if (typeof text !== "string") return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
