import { SERVER_ID_CHARS, SERVER_ID_PATTERN } from "../../domain/server/server-id.js";

/**
 * Why `name` cannot be a server id, or undefined when it can. A source reports such a name as a
 * problem line, so the operator sees which container, pod, file or package is at fault.
 */
export function nameProblem(name: string): string | undefined {
  return SERVER_ID_PATTERN.test(name) ? undefined : `is not a valid server id (${SERVER_ID_CHARS})`;
}

/** Longest piece of a found value repeated in a problem line, so a hostile label cannot flood logs. */
const MAX_QUOTED_CHARS = 80;

/** `value` quoted for a problem line, cut to a readable length. */
export function quote(value: string): string {
  const text = value.length > MAX_QUOTED_CHARS ? `${value.slice(0, MAX_QUOTED_CHARS)}...` : value;
  return JSON.stringify(text);
}
