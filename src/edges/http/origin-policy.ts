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

/**
 * Answers remembered per header value: parsing a URL costs microseconds on every request, and a
 * client sends the same `Host` and `Origin` each time. Values are the client's, so the memory is
 * bounded: past this many, it starts again empty.
 */
const REMEMBERED_VALUES = 256;

function remembered(decide: (value: string) => boolean): (value: string) => boolean {
  const answers = new Map<string, boolean>();
  return (value) => {
    let answer = answers.get(value);
    if (answer === undefined) {
      answer = decide(value);
      if (answers.size >= REMEMBERED_VALUES) answers.clear();
      answers.set(value, answer);
    }
    return answer;
  };
}

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
  const decide = remembered((origin) => {
    const url = parseOrigin(origin);
    if (url === null) return false;
    return LOOPBACK_HOSTS.has(url.hostname) || allowed.has(url.origin);
  });
  return (origin) => origin === undefined || decide(origin);
}

function parseOrigin(text: string): URL | null {
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:" ? url : null;
  } catch {
    return null;
  }
}

const loopbackHost = remembered((host) => {
  try {
    return LOOPBACK_HOSTS.has(new URL(`http://${host}`).hostname);
  } catch {
    return false;
  }
});

/** Whether a `Host` header names this machine's loopback interface (any port). */
export function isLoopbackHost(host: string | undefined): boolean {
  return host ? loopbackHost(host) : false;
}

/** Where the HTTP server listens, as the DNS-rebinding check needs it. */
export interface BrowserGuardOptions {
  /** `http.allowed_origins`. */
  readonly allowedOrigins?: readonly string[];
  /** True when it listens on loopback only: then a `Host` that names anything else is foreign. */
  readonly loopbackOnly: boolean;
}

/**
 * Why a request looks like a web page's doing (cross-site request forgery, DNS rebinding), or null:
 * an `Origin` that is not allowed, or, on a server bound to loopback, a `Host` that does not name
 * loopback. A page a user visits can send such requests to a gateway on the user's machine; they
 * carry the page's `Origin`, or a rebound name in `Host`. Non-browser clients send neither.
 */
export function createBrowserGuard(
  options: BrowserGuardOptions,
): (headers: { origin?: string | string[] | undefined; host?: string | undefined }) => string | null {
  const originAllowed = createOriginCheck(options.allowedOrigins ?? []);
  return (headers) => {
    const origin = headers.origin;
    if (!originAllowed(typeof origin === "string" ? origin : undefined)) return `Forbidden: Origin ${origin}`;
    if (options.loopbackOnly && !isLoopbackHost(headers.host))
      return `Forbidden: Host ${headers.host ?? "(none)"}`;
    return null;
  };
}
