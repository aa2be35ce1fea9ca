/**
 * Why a PostgreSQL query failed, as far as availability goes:
 * - `unreachable`: the server could not be reached or the connection died (refused, reset, timed
 *   out, DNS, the server shutting down, crashing or still starting);
 * - `saturated`: the server answers but cannot take this query now (no pooled connection freed in
 *   time, too many clients): the caller should retry, yet the store is not down;
 * - null: an ordinary SQL error (constraint, syntax, serialization...), which stays what it is.
 */
export type ConnectionFailure = "unreachable" | "saturated";

/** Socket errors of a connection that could not be made or broke. */
const SOCKET_CODES: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "EHOSTDOWN",
  "ENETUNREACH",
  "ENETDOWN",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/**
 * SQLSTATEs of an unusable server: class 08 (connection exception) is matched by prefix; 57P01
 * admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up or in recovery).
 */
const UNREACHABLE_STATES: ReadonlySet<string> = new Set(["57P01", "57P02", "57P03"]);
/** 53300 too_many_connections, 53400 configuration_limit_exceeded. */
const SATURATED_STATES: ReadonlySet<string> = new Set(["53300", "53400"]);

/**
 * The driver's own errors carry no code; these are its messages (pg 8, pg-pool 3) for a connection
 * that ended, a connect or query that timed out, and a client left unusable by an earlier failure.
 */
const UNREACHABLE_MESSAGES: readonly RegExp[] = [
  /^Connection terminated/,
  /^timeout expired$/,
  /^Query read timeout$/,
  /is not queryable$/,
];
/** pg-pool: every pooled connection stayed busy for the whole connection timeout. */
const SATURATED_MESSAGES: readonly RegExp[] = [/^timeout exceeded when trying to connect$/];

export function connectionFailure(error: unknown): ConnectionFailure | null {
  if (!(error instanceof Error)) return null;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") {
    if (SOCKET_CODES.has(code) || code.startsWith("08") || UNREACHABLE_STATES.has(code)) return "unreachable";
    if (SATURATED_STATES.has(code)) return "saturated";
  }
  if (UNREACHABLE_MESSAGES.some((pattern) => pattern.test(error.message))) return "unreachable";
  if (SATURATED_MESSAGES.some((pattern) => pattern.test(error.message))) return "saturated";
  // A connect that failed is sometimes wrapped (pg-pool's connection timeout keeps the cause).
  if (error.cause !== undefined && error.cause !== error) return connectionFailure(error.cause);
  // Several addresses tried at once (localhost as ::1 and 127.0.0.1) fail together.
  if (error instanceof AggregateError && error.errors.length > 0) {
    const kinds = error.errors.map(connectionFailure);
    if (kinds.every((kind) => kind === "unreachable")) return "unreachable";
  }
  return null;
}
