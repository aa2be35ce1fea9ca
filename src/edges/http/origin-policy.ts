/**
 * Which browser origins may use the WebSocket stream and the MCP endpoint. For `/api/ws/events` (decisions "WebSocket /api/ws/events"). A
 * WebSocket handshake is not subject to CORS, so without this check any web page a user visits
 * could read the event stream with the user's ambient credentials (cross-site WebSocket hijacking).
 *
 * - Loopback origins (`http`/`https` on `localhost`, `127.0.0.1` or `[::1]`, any port) are always
 *   allowed.
 * - Configured origins (`http.allowed_origins`, `scheme://host[:port]`) are compared after URL
 *   normalisation (case, default ports), exactly; there are no wildcards.
 * - A handshake without an `Origin` header comes from a non-browser client and is allowed: the
 *   header protects browsers' users, and every browser sends it.
 * - The opaque origin `null` (sandboxed frames, `file:` pages) is refused.
 */
export type OriginCheck = (origin: string | undefined) => boolean;

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

export function isLoopbackOrigin(origin: string): boolean {
  const url = parseOrigin(origin);
  return url !== null && LOOPBACK_HOSTS.has(url.hostname);
}

export function createOriginCheck(allowedOrigins: readonly string[] = []): OriginCheck {
  const allowed = new Set<string>();
  for (const entry of allowedOrigins) {
    const url = parseOrigin(entry);
    if (url !== null) allowed.add(url.origin);
  }
  return (origin) => {
    if (origin === undefined) return true;
    const url = parseOrigin(origin);
    if (url === null) return false;
    return LOOPBACK_HOSTS.has(url.hostname) || allowed.has(url.origin);
  };
}

function parseOrigin(text: string): URL | null {
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:" ? url : null;
  } catch {
    return null;
  }
}

/** Whether a `Host` header names this machine's loopback interface (any port). */
export function isLoopbackHost(host: string | undefined): boolean {
  if (!host) return false;
  try {
    return LOOPBACK_HOSTS.has(new URL(`http://${host}`).hostname);
  } catch {
    return false;
  }
}
