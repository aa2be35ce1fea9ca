/**
 * The server id rule of the configuration schema (`SERVER_ID_PATTERN` there): adapters may not
 * import the configuration, so the rule is restated here and a contract test pins the two equal.
 * A name that breaks it is reported as a problem line by the source that found it, so the
 * operator sees which container, pod, file or package is at fault.
 */
export const DISCOVERED_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

const NAME_RULE = "1-64 letters, digits, '_', '-' or '.', starting with a letter or digit";

/** Why `name` cannot be a server id, or undefined when it can. */
export function nameProblem(name: string): string | undefined {
  return DISCOVERED_NAME_PATTERN.test(name) ? undefined : `is not a valid server id (${NAME_RULE})`;
}

/** Longest piece of a found value repeated in a problem line, so a hostile label cannot flood logs. */
const MAX_QUOTED_CHARS = 80;

/** `value` quoted for a problem line, cut to a readable length. */
export function quote(value: string): string {
  const text = value.length > MAX_QUOTED_CHARS ? `${value.slice(0, MAX_QUOTED_CHARS)}...` : value;
  return JSON.stringify(text);
}
