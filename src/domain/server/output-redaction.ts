import { isSecretKey, REDACTED, redactString } from "../approval/redact.js";
import type { ServerSpec } from "./server-spec.js";

/**
 * Redaction of what a server wrote outside the protocol (its stderr) before it leaves the gateway's
 * memory: in a failed start's error details, or forwarded to the gateway's own log. A server
 * prints what it was given (a misconfigured client echoing its API key) and what it holds.
 */

/**
 * Values shorter than this are not searched for: replacing `1` or `on` everywhere would shred the
 * text, and a value that short protects nothing.
 */
const MIN_SECRET_CHARS = 4;

/** Maps whose every string value may carry a credential, as the configuration export treats them. */
const SECRET_MAPS: ReadonlySet<string> = new Set(["env", "headers"]);

/**
 * The values of a server's configuration that are secret wherever they show up: every `env`
 * value, every value of a `headers` map in its mode options, and every string under a
 * secret-sounding key there (`token`, `client_secret`, ...). Longest first, so a secret that
 * contains another is replaced whole.
 */
export function secretValuesOf(spec: ServerSpec): string[] {
  const found = new Set<string>();
  for (const value of Object.values(spec.env)) found.add(value);
  collect(spec.options, false, found, 0);
  return [...found].filter((value) => value.length >= MIN_SECRET_CHARS).sort((a, b) => b.length - a.length);
}

/** Nesting of mode options walked for secrets; configuration is never deeper. */
const MAX_DEPTH = 8;

function collect(value: unknown, secret: boolean, found: Set<string>, depth: number): void {
  if (depth > MAX_DEPTH) return;
  if (typeof value === "string") {
    if (secret) found.add(value);
    return;
  }
  if (Array.isArray(value)) {
    for (const item of value) collect(item, secret, found, depth + 1);
    return;
  }
  if (value === null || typeof value !== "object") return;
  for (const [key, item] of Object.entries(value)) {
    collect(item, secret || SECRET_MAPS.has(key) || isSecretKey(key), found, depth + 1);
  }
}

/** `Bearer <credential>` and the like anywhere in a line: the credential is replaced. */
const AUTH_SCHEME = /\b(bearer|basic|token)(\s+)[^\s"',;]{8,}/gi;
/** `key=value`, `key: value`, `"key": "value"`: the value is replaced when the key sounds secret. */
const KEY_VALUE = /([A-Za-z0-9_.-]+)("?\s*[=:]\s*)("?)([^\s"',;&]+)/g;
/** The words of a line that are tested against the credential shapes of `redactString`. */
const WORD = /[^\s"'`,;()<>[\]{}]+/g;

/**
 * One line with its secrets replaced by {@link REDACTED}: the given secret values wherever they
 * occur, the credential after an auth scheme or a secret-sounding key, and any word shaped like a
 * credential (a provider token, a JWT, a long random string; `redactString`'s shapes). Over-
 * redaction is the safe failure: a redacted harmless word costs a detail, a leaked secret cannot be
 * taken back.
 */
export function redactOutputLine(line: string, secrets: readonly string[]): string {
  let text = line;
  for (const secret of secrets) if (text.includes(secret)) text = text.split(secret).join(REDACTED);
  text = text.replace(AUTH_SCHEME, `$1$2${REDACTED}`);
  text = text.replace(KEY_VALUE, (whole, key: string, separator: string, quote: string, value: string) =>
    isSecretKey(key) && value !== REDACTED ? `${key}${separator}${quote}${REDACTED}` : whole,
  );
  return text.replace(WORD, (word) => redactString(word));
}
