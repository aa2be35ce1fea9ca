import { RequestRejected } from "../../../domain/errors.js";

/** Query parameters as fastify parses them: a repeated one is a list. */
export type Query = Record<string, string | string[] | undefined>;

/**
 * The code of every query parameter that cannot be read as its type (decided: spec 2 §7 gives
 * handler checks the flat 400 shape without listing every code).
 */
export const INVALID_QUERY = "invalid_query";

/** An integer: optional sign, then decimal digits only (`1.5`, `1e3`, `0x10`, ` 5` are not). */
const INTEGER = /^[+-]?\d+$/;

/** The first value of a parameter given once or repeated; absent when not given. */
export function firstValue(value: string | string[] | undefined): string | undefined {
  return [value].flat()[0];
}

/** A parameter given without a value (`?lines=`) reads as absent, so its default applies. */
function given(query: Query, name: string): string | undefined {
  const value = firstValue(query[name]);
  return value === undefined || value === "" ? undefined : value;
}

/**
 * An integer query parameter, absent when not given; anything else that is not an integer answers
 * 400 `invalid_query` naming it. The operation clamps it to its range (spec 1 §4); a value beyond
 * what a number holds exactly is brought to the edge of that first, which clamps the same way.
 */
export function integerQuery(query: Query, name: string): number | undefined {
  const text = given(query, name);
  if (text === undefined) return undefined;
  if (!INTEGER.test(text)) throw new RequestRejected(400, INVALID_QUERY, `${name} must be an integer`);
  return Math.min(Number.MAX_SAFE_INTEGER, Math.max(-Number.MAX_SAFE_INTEGER, Number(text)));
}

/**
 * The words a boolean query parameter may be written with, in any case (**decided**: as common
 * HTTP frameworks read them, so `False` from a client that writes booleans capitalised is false).
 */
const BOOLEAN_WORDS: Readonly<Record<string, boolean>> = {
  true: true,
  false: false,
  "1": true,
  "0": false,
  yes: true,
  no: false,
  on: true,
  off: false,
};

/** A boolean query parameter (see `BOOLEAN_WORDS`), absent when not given, else 400 `invalid_query`. */
export function booleanQuery(query: Query, name: string): boolean | undefined {
  const text = given(query, name);
  if (text === undefined) return undefined;
  const value = BOOLEAN_WORDS[text.toLowerCase()];
  if (value === undefined) {
    throw new RequestRejected(400, INVALID_QUERY, `${name} must be true or false (or 1/0, yes/no, on/off)`);
  }
  return value;
}
