/**
 * Redaction of a held call's arguments before they are stored, published or sent to a channel
 * (decisions "Approvals"): values under secret-like keys, and values that look like secrets
 * wherever they are, are replaced by {@link REDACTED}. The approver sees the shape of the call and
 * every harmless value; the arguments hash is computed over the unredacted arguments elsewhere.
 *
 * Over-redaction is the safe failure: a redacted harmless value costs the approver a detail, a
 * leaked secret cannot be taken back.
 */
export const REDACTED = "[REDACTED]";

/** Key words (after splitting a key into words) whose values are always secret. */
const SECRET_WORDS = new Set([
  "password",
  "passwords",
  "passwd",
  "pwd",
  "passphrase",
  "secret",
  "secrets",
  "token",
  "tokens",
  "key",
  "keys",
  "apikey",
  "auth",
  "authorization",
  "oauth",
  "credential",
  "credentials",
  "cookie",
  "cookies",
  "signature",
  "bearer",
  "pin",
]);

/** Substrings that mark a key as secret even inside a longer word (`clientsecret`, `authtoken`). */
const SECRET_PARTS = ["password", "passwd", "secret", "token", "credential", "apikey", "privatekey"];

/** Splits `apiKey`, `api_key`, `X-Api-Key` and `APIKey` into lower-case words. */
function words(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 0);
}

/** Whether values under `key` are secret by the key's name alone. */
export function isSecretKey(key: string): boolean {
  const parts = words(key);
  if (parts.some((word) => SECRET_WORDS.has(word))) return true;
  const joined = parts.join("");
  return SECRET_PARTS.some((part) => joined.includes(part));
}

/** Well-known credential formats: tokens of common providers, JWTs, PEM keys, auth headers. */
const SECRET_VALUE_PATTERNS: readonly RegExp[] = [
  /^(bearer|basic|token)\s+\S{8,}/i,
  /^eyJ[\w-]{5,}\.[\w-]{5,}\.[\w-]*$/,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
  /\b(sk|rk|pk)[-_](live|test|proj)?[-_]?[A-Za-z0-9]{16,}/,
  /\bgh[pousr]_[A-Za-z0-9]{30,}/,
  /\bgithub_pat_[A-Za-z0-9_]{30,}/,
  /\bglpat-[A-Za-z0-9_-]{20,}/,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/,
  /\bAKIA[0-9A-Z]{16}\b/,
  /\bAIza[0-9A-Za-z_-]{35}\b/,
  /\bnpm_[A-Za-z0-9]{36}\b/,
  /^mcp_\S{8,}$/,
  // Airlock's own keys (`mcp_` and 43 URL-safe base64 characters, 32 random bytes) anywhere in a
  // text; a longer identifier (`mcp_servers_..._override`) is not one.
  /\bmcp_[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/,
];

/** A URL carrying a password: only the password is replaced. */
const URL_PASSWORD = /^([a-z][a-z0-9+.-]*:\/\/[^/\s:@]*:)([^@\s/]+)(@)/i;

/** Shannon entropy of a string in bits per character. */
function entropy(text: string): number {
  const counts = new Map<string, number>();
  for (const char of text) counts.set(char, (counts.get(char) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/**
 * A long unbroken token mixing upper case, lower case and digits with high entropy: a random API
 * key or password. Hex digests (at most 4 bits per character) and words stay visible.
 */
function looksRandom(text: string): boolean {
  if (text.length < 32 || !/^[A-Za-z0-9+/=_.-]+$/.test(text)) return false;
  if (!/[a-z]/.test(text) || !/[A-Z]/.test(text) || !/[0-9]/.test(text)) return false;
  return entropy(text) >= 4.3;
}

/** A string value with its secret parts replaced (the whole value, or a URL's password). */
export function redactString(value: string): string {
  const trimmed = value.trim();
  if (SECRET_VALUE_PATTERNS.some((pattern) => pattern.test(trimmed)) || looksRandom(trimmed)) {
    return REDACTED;
  }
  return value.replace(URL_PASSWORD, `$1${REDACTED}$3`);
}

/** Nesting beyond this is replaced whole: arguments that deep are not meant for a human. */
const MAX_DEPTH = 32;

function redactValue(value: unknown, depth: number): unknown {
  if (depth > MAX_DEPTH) return REDACTED;
  if (typeof value === "string") return redactString(value);
  if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      out[key] =
        isSecretKey(key) && inner !== null && inner !== "" ? REDACTED : redactValue(inner, depth + 1);
    }
    return out;
  }
  return value;
}

/** A redacted copy of a call's arguments; the input is left untouched. */
export function redactArguments(args: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return redactValue(args, 0) as Record<string, unknown>;
}
