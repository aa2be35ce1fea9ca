import { z } from "zod";

const INTEGER_RULE = "must be an integer";

/**
 * An integer parameter the specification clamps rather than refuses (logs `lines`, history `limit`
 * and `from_position`, spec 1 §4): absent is `fallback`, a number outside `min`-`max` is brought
 * inside. A value that is not an integer is refused, never read as the default: the REST edge
 * answers a query text that is not one with 400 before it gets here.
 */
export function clampedInteger(fallback: number, min: number, max: number) {
  return z
    .int({ error: INTEGER_RULE })
    .optional()
    .transform((n) => (n === undefined ? fallback : Math.min(max, Math.max(min, n))));
}
