/**
 * The gateway's REST API as the console calls it: same origin, the session cookie sent by the
 * browser (never read by script), the session's CSRF token on every write. Errors carry the API's
 * own message, whatever shape its body has.
 */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string | null,
    readonly details: unknown,
  ) {
    super(message);
  }
}

let csrfToken: string | null = null;

/** The session's CSRF token, sent as `X-CSRF-Token` on writes (null with authentication off). */
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** Called when an answer says the session ended (401): the console goes back to sign-in. */
let onSignedOut: () => void = () => {};
export function whenSignedOut(handler: () => void): void {
  onSignedOut = handler;
}

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * Calls `/api<path>`; resolves to the JSON answer (undefined for 204), or throws an ApiError
 * (`signal` aborts the request: an ApiError of status 0 saying it was cancelled).
 */
export async function api<T>(method: Method, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (body !== undefined) headers["content-type"] = "application/json";
  if (method !== "GET" && csrfToken) headers["x-csrf-token"] = csrfToken;
  let response: Response;
  try {
    response = await fetch(`/api${path}`, {
      method,
      headers,
      credentials: "same-origin",
      ...(body !== undefined && { body: JSON.stringify(body) }),
      ...(signal && { signal }),
    });
  } catch {
    if (signal?.aborted) throw new ApiError(0, "Cancelled", null, null);
    throw new ApiError(0, "The gateway cannot be reached", null, null);
  }
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = text;
  }
  if (response.ok) return parsed as T;
  if (response.status === 401 && !path.startsWith("/ui/session")) onSignedOut();
  throw errorOf(response.status, parsed);
}

/** The API's error bodies: `{error:{code,message}}`, `{error, message}`, `{error, detail}`, `{error:'<message>'}`. */
function errorOf(status: number, body: unknown): ApiError {
  const record = (body ?? {}) as Record<string, unknown>;
  const error = record.error;
  if (error && typeof error === "object") {
    const inner = error as Record<string, unknown>;
    return new ApiError(
      status,
      String(inner.message ?? `HTTP ${status}`),
      String(inner.code ?? ""),
      inner.details,
    );
  }
  const message = record.message ?? record.detail ?? (typeof error === "string" ? error : null);
  return new ApiError(
    status,
    typeof message === "string" ? message : `HTTP ${status}`,
    typeof error === "string" ? error : null,
    record.details ?? null,
  );
}

/** A path segment, encoded. */
export function seg(value: string): string {
  return encodeURIComponent(value);
}
