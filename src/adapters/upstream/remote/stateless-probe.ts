import type { FetchFunction } from "../../../app/ports/endpoint-guard.js";
import { encodeHeaderValue, MCP_NAME_FIELD } from "../../../domain/policy/param-headers.js";
import { STATELESS_REVISION } from "../../../domain/stateless-revision.js";
import { offeredStateless, PROBE_TIMEOUT_MS, type StatelessUpstream } from "../session/stateless-upstream.js";

/**
 * Asks `endpoint` for `server/discover` as a client of revision 2026-07-28 would (the revision's
 * headers and `_meta` envelope), and answers what it discovered when the upstream serves that
 * revision (a server of both eras included: the newest revision it serves is spoken). Anything else
 * (the 4xx of a server of the session revisions alone, an error, a timeout) answers undefined: the
 * gateway then opens a session with `initialize`, as the revision's backward compatibility says.
 */
export async function probeStateless(
  fetch: FetchFunction,
  endpoint: URL,
  envelope: Readonly<Record<string, unknown>>,
  timeoutMs: number,
): Promise<StatelessUpstream | undefined> {
  const body = { jsonrpc: "2.0", id: 0, method: "server/discover", params: { _meta: envelope } };
  let text: string;
  let type: string;
  try {
    const res = await fetch(endpoint, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": STATELESS_REVISION,
        "mcp-method": "server/discover",
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(Math.min(timeoutMs, PROBE_TIMEOUT_MS)),
    });
    if (!res.ok) {
      await res.body?.cancel().catch(() => {});
      return undefined;
    }
    type = res.headers.get("content-type") ?? "";
    text = await res.text();
  } catch {
    return undefined;
  }
  return offeredStateless(answerOf(text, type), envelope);
}

/** The `result` of the answer to request 0, from a JSON body or an SSE stream's events. */
function answerOf(text: string, type: string): Record<string, unknown> | undefined {
  const bodies = type.startsWith("text/event-stream")
    ? text
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trim())
    : [text];
  for (const candidate of bodies) {
    try {
      const message = JSON.parse(candidate) as { id?: unknown; result?: unknown };
      if (message.id === 0 && typeof message.result === "object" && message.result !== null)
        return message.result as Record<string, unknown>;
    } catch {
      // Not JSON: not the answer.
    }
  }
  return undefined;
}

/**
 * Wraps `fetch` for a stateless upstream:
 *
 * - each message posted carries the headers the revision requires beside its body:
 *   `MCP-Protocol-Version`, `Mcp-Method`, and `Mcp-Name` for `tools/call` and `prompts/get` (the
 *   name) and `resources/read` (the URI), Base64-encoded in the revision's `=?base64?…?=` form
 *   when it is not plain visible ASCII;
 * - a JSON-RPC error the revision answers with a 4xx status (-32021 with 400, -32601 with 404, ...)
 *   is handed on as the answer it is, with status 200: the session transport reads the body of a
 *   2xx answer only, and would report the status instead of the upstream's error.
 */
export function statelessHeaders(fetch: FetchFunction): FetchFunction {
  return async (url, init) => errorsAsAnswers(await withHeaders(fetch, url, init));
}

async function errorsAsAnswers(res: Response): Promise<Response> {
  if (res.status < 400 || res.status >= 500) return res;
  if (!(res.headers.get("content-type") ?? "").startsWith("application/json")) return res;
  const text = await res.text();
  try {
    const message = JSON.parse(text) as { jsonrpc?: unknown; id?: unknown; error?: unknown };
    if (
      message.jsonrpc === "2.0" &&
      message.error !== undefined &&
      message.id !== null &&
      message.id !== undefined
    )
      return new Response(text, { status: 200, headers: res.headers });
  } catch {
    // Not JSON-RPC: the status stands.
  }
  return new Response(text, { status: res.status, statusText: res.statusText, headers: res.headers });
}

/** The request with the revision's headers, when it posts a message. */
function withHeaders(
  fetch: FetchFunction,
  url: string | URL,
  init: RequestInit | undefined,
): Promise<Response> {
  if (init?.method !== "POST" || typeof init.body !== "string") return fetch(url, init);
  let message: { method?: unknown; params?: Record<string, unknown> };
  try {
    message = JSON.parse(init.body) as typeof message;
  } catch {
    return fetch(url, init);
  }
  if (typeof message.method !== "string") return fetch(url, init);
  const headers = new Headers(init.headers);
  headers.set("mcp-protocol-version", STATELESS_REVISION);
  headers.set("mcp-method", message.method);
  // The SDK transport derives `Mcp-Name` from the message by a table of its own: this one decides.
  headers.delete("mcp-name");
  const field = MCP_NAME_FIELD[message.method];
  const name = field === undefined ? undefined : message.params?.[field];
  if (typeof name === "string") headers.set("mcp-name", encodeHeaderValue(name));
  return fetch(url, { ...init, headers });
}
