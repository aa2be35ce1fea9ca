import { z } from "zod";
import { isGrantText } from "../../../domain/auth/permissions.js";
import { GLOBAL_SCOPE } from "../../../domain/auth/scope.js";
import { GatewayError } from "../../../domain/errors.js";

/**
 * Field rules shared by the auth management operations. Each refusal names its rule, so a
 * `ValidationError` reads `Invalid field '<field>': <rule>`.
 */

const ACTOR_RULE = "must not be sent: the actor of a change is the authenticated caller";

/**
 * Spec 1 actor rule: a body carrying one of these, whatever its value, is refused with a
 * ValidationError naming the field. Spread first into a body's shape, so the refusal names the actor
 * field even when other fields are wrong too.
 */
export const actorFields = {
  created_by: z.never({ error: ACTOR_RULE }).optional(),
  revoked_by: z.never({ error: ACTOR_RULE }).optional(),
  assigned_by: z.never({ error: ACTOR_RULE }).optional(),
  updated_by: z.never({ error: ACTOR_RULE }).optional(),
};

const PRINCIPAL_RULE =
  "must be a non-empty string of at most 256 characters, without control characters or surrounding spaces";

/** Principal ids are API-key owners and JWT subjects alike (`auth0|123`, e-mail addresses, ...). */
export function principalId() {
  return z
    .string({ error: PRINCIPAL_RULE })
    .min(1, { error: PRINCIPAL_RULE })
    .max(256, { error: PRINCIPAL_RULE })
    .refine((text) => text.trim() === text && !/\p{Cc}/u.test(text), { error: PRINCIPAL_RULE });
}

const ROLE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const ROLE_NAME_RULE =
  "must be 1-64 characters: letters, digits, '_', '.' or '-', starting with a letter or digit";

/** Names that are paths of their own under `/auth/roles/`, so a role of that name could not be reached. */
const RESERVED_ROLE_NAMES: ReadonlySet<string> = new Set(["all", "assign", "revoke"]);

export function roleName() {
  return z
    .string({ error: ROLE_NAME_RULE })
    .regex(ROLE_NAME, { error: ROLE_NAME_RULE })
    .refine((name) => !RESERVED_ROLE_NAMES.has(name), {
      error: `must not be ${[...RESERVED_ROLE_NAMES].join(", ")} (paths of their own under /auth/roles)`,
    });
}

const SCOPE = /^tenant:\S+$/;
const SCOPE_RULE = "must be global or tenant:<tenant_id>";

/** A role assignment's scope, as `role_assignments` of the configuration accepts it. */
export function roleScope() {
  return z
    .string({ error: SCOPE_RULE })
    .refine((scope) => scope === GLOBAL_SCOPE || SCOPE.test(scope), { error: SCOPE_RULE });
}

const PERMISSION_RULE =
  "must be resource:action or resource:action:id (parts of letters, digits, '_', '-', '.' or '*')";

/** Longest permission string accepted; grants are short, and they are stored and matched often. */
const PERMISSION_MAX = 256;
/** Most permissions one custom role may list. */
export const ROLE_PERMISSIONS_MAX = 500;

export function permission() {
  return z
    .string({ error: PERMISSION_RULE })
    .max(PERMISSION_MAX, { error: PERMISSION_RULE })
    .refine(isGrantText, { error: PERMISSION_RULE });
}

export function permissionList() {
  return z
    .array(permission(), { error: "must be a list of permission strings" })
    .max(ROLE_PERMISSIONS_MAX, { error: `must list at most ${ROLE_PERMISSIONS_MAX} permissions` });
}

const DESCRIPTION_MAX = 1024;

export function description() {
  return z
    .string({ error: "must be a string" })
    .max(DESCRIPTION_MAX, { error: `must be at most ${DESCRIPTION_MAX} characters` });
}

const BOOLEAN_RULE = "must be true or false";

/**
 * A boolean query parameter, absent meaning `fallback`. The REST edge reads the query text (`true`
 * or `false` only, anything else 400 `invalid_query`); here it is a boolean or nothing.
 */
export function queryBoolean(fallback: boolean) {
  return z.boolean({ error: BOOLEAN_RULE }).default(fallback);
}

const ISO_8601 =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * Epoch milliseconds of an ISO 8601 date (`2026-01-31`, midnight UTC) or date-time
 * (`2026-01-31T12:00:00Z`, `...+02:00`; without an offset it is UTC); null when malformed or not a
 * real calendar time.
 */
export function parseIsoTime(text: string): number | null {
  const match = ISO_8601.exec(text.trim());
  if (!match) return null;
  const [, y, mo, d, h = "0", mi = "0", s = "0", fraction = "", offset = "Z"] = match;
  const parts = [y, mo, d, h, mi, s].map(Number) as [number, number, number, number, number, number];
  const [year, month, day, hour, minute, second] = parts;
  const utc = Date.UTC(year, month - 1, day, hour, minute, second);
  const check = new Date(utc);
  if (
    check.getUTCFullYear() !== year ||
    check.getUTCMonth() !== month - 1 ||
    check.getUTCDate() !== day ||
    hour > 23 ||
    minute > 59 ||
    second > 59
  ) {
    return null;
  }
  const millis = fraction === "" ? 0 : Math.floor(Number(`0.${fraction}`) * 1000);
  let offsetMinutes = 0;
  if (offset.toUpperCase() !== "Z") {
    const digits = offset.replace(":", "");
    const sign = digits.startsWith("-") ? -1 : 1;
    const offsetHours = Number(digits.slice(1, 3));
    const offsetMins = Number(digits.slice(3, 5));
    if (offsetHours > 23 || offsetMins > 59) return null;
    offsetMinutes = sign * (offsetHours * 60 + offsetMins);
  }
  return utc + millis - offsetMinutes * 60_000;
}

/** ISO 8601 (UTC, milliseconds) of a stored time in epoch seconds; null stays null. */
export function isoFromSeconds(seconds: number | null): string | null {
  return seconds === null ? null : new Date(Math.round(seconds * 1000)).toISOString();
}

/** A ValidationError naming one field and its rule, shaped like a schema refusal. */
export function fieldError(field: string, rule: string, status?: number): GatewayError {
  return new GatewayError(
    "ValidationError",
    `Invalid field '${field}': ${rule}`,
    { issues: [{ field, rule }] },
    status,
  );
}
