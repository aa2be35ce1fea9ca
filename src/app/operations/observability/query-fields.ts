import { z } from "zod";
import { parseIsoTime } from "../auth/fields.js";

/**
 * Field rules of the observability reads' query parameters. A query parameter given without a
 * value (`?outcome=`) reads as absent, as the integer and boolean parameters of every route do.
 */

const TEXT_RULE = "must be a string of 1-256 characters";
const TIME_RULE =
  "must be epoch seconds (e.g. 1767225600.5) or an ISO 8601 date-time (e.g. 2026-01-01T00:00:00Z)";
const EPOCH_SECONDS = /^\d{1,12}(?:\.\d{1,9})?$/;

const absentWhenEmpty = (value: unknown) => (value === "" ? undefined : value);

/** An optional exact-match filter: 1-256 characters, or absent. */
export function textFilter() {
  return z.preprocess(
    absentWhenEmpty,
    z.string({ error: TEXT_RULE }).min(1, { error: TEXT_RULE }).max(256, { error: TEXT_RULE }).optional(),
  );
}

/** An optional choice among `values`, or absent; another value is refused naming them. */
export function choiceFilter<const T extends readonly [string, ...string[]]>(values: T) {
  return z.preprocess(
    absentWhenEmpty,
    z.enum(values, { error: `must be one of ${values.join(", ")}` }).optional(),
  );
}

/**
 * An optional point in time, read as epoch seconds: a number of seconds (fractional allowed, as
 * the records and events carry them), or an ISO 8601 date or date-time (UTC without an offset).
 */
export function timeFilter() {
  return z.preprocess(
    absentWhenEmpty,
    z
      .union([z.number(), z.string()], { error: TIME_RULE })
      .optional()
      .transform((value, ctx) => {
        if (value === undefined) return undefined;
        const seconds = typeof value === "number" ? value : secondsOf(value);
        if (seconds === null || !Number.isFinite(seconds) || seconds < 0) {
          ctx.addIssue({ code: "custom", message: TIME_RULE });
          return z.NEVER;
        }
        return seconds;
      }),
  );
}

function secondsOf(text: string): number | null {
  if (EPOCH_SECONDS.test(text)) return Number(text);
  const millis = parseIsoTime(text);
  return millis === null ? null : millis / 1000;
}

/** Epoch seconds as ISO 8601 UTC (milliseconds), the form the `dead` object's times take. */
export function isoTime(seconds: number): string {
  return new Date(Math.round(seconds * 1000)).toISOString();
}
