/**
 * Building blocks of the configuration schema. Every refusal the schema can produce is worded
 * here once, as a rule a reader can act on ("must be an integer between 1 and 86400"), rather than
 * zod's generic "Invalid input". The loader adds the dotted path in front of each message.
 */
import * as z from "zod";
import { CLOSED_MARK, withJsonSchema } from "./json-hints.js";

/** Message of a key that must be present and is not. */
export const REQUIRED = "is required";

interface IssueView {
  readonly code?: string;
  readonly input?: unknown;
}

/**
 * zod error option producing `message` for a value of the wrong shape and `is required` for an
 * absent one. Unknown-key issues keep zod's own text: the loader rewrites them anyway.
 */
export function rule(message: string) {
  return {
    error: (issue: IssueView) => {
      if (issue.code === "unrecognized_keys") return undefined;
      return issue.input === undefined ? REQUIRED : message;
    },
  };
}

/** Marks a zod custom issue as a warning the loader can repair by editing the raw document. */
export type WarningFix = { readonly kind: "delete" } | { readonly kind: "replace"; readonly value: unknown };

export interface WarningParams {
  /** Stable warning code reported to the operator (`unknown_config_key`, ...). */
  readonly warning: string;
  /** How the loader makes the document acceptable before the next pass. */
  readonly fix: WarningFix;
}

/** Issue parameters of a refusal with its own code (instead of the generic `invalid_value`). */
export interface ErrorParams {
  readonly code: string;
}

type AddIssue = (issue: {
  code: "custom";
  message: string;
  path?: PropertyKey[];
  params?: Record<string, unknown>;
}) => void;

/** Adds a warning issue that the loader repairs with `fix` and reports, instead of refusing. */
export function addWarning(
  ctx: { addIssue: AddIssue },
  path: PropertyKey[],
  message: string,
  params: WarningParams,
): void {
  ctx.addIssue({ code: "custom", message, path, params: { ...params } });
}

/** Adds a refusal with an explicit code. */
export function addError(
  ctx: { addIssue: AddIssue },
  path: PropertyKey[],
  message: string,
  code?: string,
): void {
  ctx.addIssue(
    code === undefined
      ? { code: "custom", message, path }
      : { code: "custom", message, path, params: { code } satisfies ErrorParams },
  );
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const BOOL = "must be true or false";

export const bool = () => z.boolean(rule(BOOL));

export const str = (message = "must be a string") => z.string(rule(message));

function isBlank(value: string): boolean {
  return value.trim().length === 0;
}

/** A string with at least one non-whitespace character. */
export function nonBlank(message = "must be a non-empty string") {
  return z.string(rule(message)).refine((value) => !isBlank(value), { error: message });
}

/**
 * An integer accepted by `accept`, refused with one `message`. One refinement instead of zod's
 * `.int().min().max()`: zod's integer check aborts the whole parse (later cross-field rules would
 * not run) and separate checks could report the same value twice.
 */
export function integer(
  message: string,
  accept: (value: number) => boolean = () => true,
  bounds: { readonly minimum?: number; readonly maximum?: number } = {},
) {
  return z
    .number(rule(message))
    .refine((value) => Number.isSafeInteger(value) && accept(value), { error: message })
    .meta({ type: "integer", ...bounds });
}

/** An integer within `[min, max]`; the message names both bounds. */
export function intBetween(min: number, max: number) {
  return integer(`must be an integer between ${min} and ${max}`, (value) => value >= min && value <= max, {
    minimum: min,
    maximum: max,
  });
}

/** An integer `>= min` with a message in plain words. */
export function intAtLeast(min: number, message?: string) {
  const text =
    message ??
    (min === 1
      ? "must be a positive integer"
      : min === 0
        ? "must be an integer >= 0"
        : `must be an integer >= ${min}`);
  return integer(text, (value) => value >= min, { minimum: min });
}

/** A finite number strictly above `min` (and at most `max` when given). */
export function numberAbove(min: number, max?: number) {
  const message =
    max === undefined
      ? `must be a number greater than ${min}`
      : `must be a number greater than ${min} and at most ${max}`;
  const base = z.number(rule(message)).gt(min, { error: message });
  return max === undefined ? base : base.max(max, { error: message });
}

/** A finite number within `[min, max]`. */
export function numberBetween(min: number, max: number) {
  const message = `must be a number between ${min} and ${max}`;
  return z.number(rule(message)).min(min, { error: message }).max(max, { error: message });
}

/** One of a fixed set of strings; the message lists them. */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, rule(`must be one of ${values.join(", ")}`));
}

/**
 * A list of non-blank strings. A bare string is refused rather than wrapped: `allow_list: "a*"`
 * is a likely mistake for a list and silently accepting it would change its meaning.
 */
export function stringList(what = "strings") {
  return z.array(
    nonBlank(`must be a non-empty string`),
    rule(`must be a list of ${what} (a bare string is refused)`),
  );
}

/** A mapping from string keys to values of `value`. */
export function mapOf<V extends z.ZodType>(value: V, message = "must be a mapping") {
  return z.record(z.string(), value, rule(message));
}

/**
 * Environment-style map: string values, with YAML numbers and booleans (`PORT: 8080`) turned into
 * their text, since an environment only holds strings. Null and nested values are refused.
 */
export function stringMap() {
  const message = "must be a string (numbers and booleans are converted; null and mappings are refused)";
  return mapOf(
    z
      .union([z.string(), z.number(), z.boolean()], rule(message))
      .transform((value) => (typeof value === "string" ? value : String(value))),
    "must be a mapping of names to strings",
  );
}

/** Treats YAML's empty value (`logging:` with every child commented out) as an absent block. */
function nullAsAbsent(value: unknown): unknown {
  return value === null ? undefined : value;
}

/**
 * A configuration block with defaults: absent or empty (`null`) means "all defaults". Unknown keys
 * are reported by the loader (as warnings, or errors in strict mode).
 */
export function section<S extends z.ZodRawShape>(shape: S) {
  const object = z.strictObject(shape, rule("must be a mapping"));
  return z.preprocess(nullAsAbsent, object.prefault({} as z.input<typeof object>)).meta(NULL_OR_MAPPING);
}

/** JSON Schema type of a block that YAML may leave empty (`null`). */
const NULL_OR_MAPPING = { type: ["object", "null"] };

/** A block whose absence has a meaning of its own (no default object is made). */
export function optionalSection<S extends z.ZodRawShape>(shape: S) {
  return z
    .preprocess(nullAsAbsent, z.strictObject(shape, rule("must be a mapping")).optional())
    .meta(NULL_OR_MAPPING);
}

/**
 * A mapping whose keys are fixed and where any other key is an error, not a warning: used for
 * policy blocks (rule 1 of the tool policy) and budgets that need exactly their keys.
 */
export function closedObject<S extends z.ZodRawShape>(
  shape: S,
  options: {
    readonly notMapping: string;
    readonly unknownKey: (key: string) => string;
    readonly unknownKeyCode: string;
  },
) {
  const known = new Set(Object.keys(shape));
  const checked = z
    .looseObject(shape, {
      error: (issue: IssueView) => (issue.input === undefined ? REQUIRED : options.notMapping),
    })
    // Runs even when a field was refused, so an unknown key is reported alongside field errors.
    .superRefine(
      (value, ctx) => {
        for (const key of Object.keys(value)) {
          if (!known.has(key)) addError(ctx, [key], options.unknownKey(key), options.unknownKeyCode);
        }
      },
      { when: (payload) => isPlainObject(payload.value) },
    );
  return withJsonSchema(checked, (_render, converted) => ({
    ...converted,
    additionalProperties: false,
    [CLOSED_MARK]: true,
  })).transform((value) => {
    const picked: Record<string, unknown> = {};
    for (const key of known) if (value[key] !== undefined) picked[key] = value[key];
    return picked as z.output<z.ZodObject<S>>;
  });
}

/**
 * A key that was removed from the format: still loads, is flagged as unknown (an error in strict
 * mode) and never reaches the output. `message` says why; the loader adds "ignored" or "refused".
 */
export function removedKey(message: string) {
  return z
    .unknown()
    .superRefine((value, ctx) => {
      if (value !== undefined) {
        addWarning(ctx, [], message, { warning: "unknown_config_key", fix: { kind: "delete" } });
      }
    })
    .optional()
    .meta({ deprecated: true, description: `${message}; ignored` });
}

/** Drops the named keys from a parsed object (used after `removedKey` fields). */
export function omitKeys<T extends object, K extends keyof T>(value: T, keys: readonly K[]): Omit<T, K> {
  const copy = { ...value };
  for (const key of keys) delete copy[key];
  return copy;
}

/** An `http://` or `https://` URL. */
export function httpUrl(message = "must be an http:// or https:// URL") {
  return z.string(rule(message)).refine(
    (value) => {
      try {
        const url = new URL(value);
        return url.protocol === "http:" || url.protocol === "https:";
      } catch {
        return false;
      }
    },
    { error: message },
  );
}

/**
 * Why `url` cannot name a Redis server as the Redis client reads it, or null when it can: a
 * `redis://` or `rediss://` URL with a host, whose path, if any, is a database number.
 */
export function redisUrlProblem(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "is not a valid URL (expected redis://host:port/db or rediss://...)";
  }
  if (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:") {
    return "must use the redis:// or rediss:// scheme";
  }
  if (parsed.hostname === "") return "names no host";
  if (!/^\/?(\d+)?$/.test(parsed.pathname))
    return "has a path that is not a database number (redis://host:port/0)";
  return null;
}

/** A Redis URL {@link redisUrlProblem} accepts; the refusal says what is wrong with it. */
export function redisUrl() {
  return z.string(rule("must be a redis:// or rediss:// URL")).superRefine((value, ctx) => {
    const problem = redisUrlProblem(value);
    if (problem !== null) ctx.addIssue({ code: "custom", message: problem });
  });
}

/**
 * An old spelling still accepted for one value: reported as `deprecated_config_value` and
 * replaced by the current one before the next pass.
 */
export function withDeprecatedAlias<T extends z.ZodType>(
  schema: T,
  old: string,
  current: string,
  since: string,
) {
  const message = `'${old}' is deprecated (renamed '${current}' ${since}); read as '${current}'`;
  const aliased = z
    .unknown()
    .superRefine((value, ctx) => {
      if (value === old) {
        addWarning(ctx, [], message, {
          warning: "deprecated_config_value",
          fix: { kind: "replace", value: current },
        });
      }
    })
    .pipe(schema);
  return withJsonSchema(aliased, (render) => ({
    anyOf: [render(schema), { const: old, deprecated: true, description: message }],
  }));
}
