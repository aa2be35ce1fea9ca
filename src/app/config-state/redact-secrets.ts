import { isSecretKey, redactString } from "../../domain/approval/redact.js";

/** What a secret is shown as: the exported document stays loadable (every secret is a string key). */
export const REDACTED = "[redacted]";
/** A secret whose value differs from the other side of a comparison; its value is still not shown. */
export const REDACTED_DIFFERS = "[redacted, differs]";

/** Maps whose every string value may carry a credential: environment variables and request headers. */
const SECRET_MAPS: ReadonlySet<string> = new Set(["env", "headers"]);
/** A URL-looking string: its user info password and sensitive query values are secrets too. */
const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * A copy of a configuration document with its secrets replaced by {@link REDACTED}: string values
 * of sensitive keys (`isSecretKey`), strings shaped like credentials anywhere (`redactString`),
 * every value of `env` and `headers` maps (numbers, lists and mappings too), and passwords and
 * sensitive query values inside URLs. Keys, structure and every other value are kept, so the
 * result loads like the original (outside those maps, a secret-sounding key holding a number or a
 * mapping, such as a limit, is not a secret and is kept or walked).
 *
 * With `other` (the document it is compared with), a secret whose value differs from the string
 * at the same place in `other` shows as {@link REDACTED_DIFFERS}, so a changed secret is visible
 * in a diff without being revealed.
 */
export function redactSecrets(document: unknown, other?: unknown): unknown {
  return walk(document, other, other !== undefined);
}

function walk(value: unknown, other: unknown, comparing: boolean): unknown {
  if (typeof value === "string") return redactText(value);
  if (Array.isArray(value)) {
    const others = Array.isArray(other) ? other : [];
    return value.map((item, index) => walk(item, others[index], comparing));
  }
  if (!isRecord(value)) return value;
  const others = isRecord(other) ? other : {};
  const result: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (typeof item === "string" && isSecretKey(key)) {
      result[key] = secret(item, others[key], comparing);
    } else if (SECRET_MAPS.has(key) && isRecord(item)) {
      const otherMap = isRecord(others[key]) ? (others[key] as Record<string, unknown>) : {};
      // Every value, whatever its type: a number is passed to the process as its text, and a list
      // or mapping written there by mistake may hold the secret all the same.
      result[key] = Object.fromEntries(
        Object.entries(item).map(([name, entry]) => [name, secret(entry, otherMap[name], comparing)]),
      );
    } else {
      result[key] = walk(item, others[key], comparing);
    }
  }
  return result;
}

function secret(value: unknown, other: unknown, comparing: boolean): string {
  return comparing && other !== undefined && !sameValue(other, value) ? REDACTED_DIFFERS : REDACTED;
}

function sameValue(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/**
 * A plain string value: URLs lose their secrets; anything shaped like a credential (a provider
 * token, a JWT, a private key, `--api-key=sk-live-...` in a command's arguments) is replaced whole.
 * The credential shapes are the approval redactor's (`domain/approval/redact.ts`).
 */
function redactText(value: string): string {
  if (URL_LIKE.test(value)) return redactUrl(value);
  return redactString(value) === value ? value : REDACTED;
}

/** The URL without its password and with the values of sensitive query parameters replaced. */
export function redactUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return text;
  }
  let changed = false;
  if (url.password !== "") {
    url.password = "redacted";
    changed = true;
  }
  for (const key of [...url.searchParams.keys()]) {
    if (isSecretKey(key)) {
      url.searchParams.set(key, REDACTED);
      changed = true;
    }
  }
  // Unchanged URLs keep their exact spelling (URL serialisation may add a trailing slash).
  return changed ? url.toString() : text;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
