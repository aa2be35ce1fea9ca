import { cutJson, type JsonValue } from "./cut-json.js";
import { cutString } from "./cut-string.js";

/** How an oversized result is cut (`truncation.preserve_json_structure`, `truncate_on_line_boundary`). */
export interface CutStyle {
  preserveJsonStructure: boolean;
  truncateOnLineBoundary: boolean;
}

/** Spec 2 §2 `truncation`: the one reason a result is cut. */
export const BATCH_BUDGET_EXCEEDED = "batch_budget_exceeded";

export interface CutResult {
  /** What the caller gets in place of the result; its JSON text takes at most the share. */
  kept: JsonValue;
  /** The complete result as JSON text: what a continuation keeps. */
  text: string;
}

/**
 * Cuts a result to its share. With `preserveJsonStructure` the kept part is a structural prefix of
 * the result ({@link cutJson}); without it, it is a string: the first characters of the result's
 * JSON text, so that the text from byte `utf8Length(kept)` on is exactly what was cut away.
 */
export function cutResult(result: JsonValue, share: number, style: CutStyle): CutResult {
  const text = JSON.stringify(result);
  if (style.preserveJsonStructure) {
    try {
      return { kept: cutJson(result, share, style.truncateOnLineBoundary), text };
    } catch (error) {
      // Nesting deeper than the call stack allows: the flat cut below cannot fail that way.
      if (!(error instanceof RangeError)) throw error;
    }
  }
  return { kept: cutString(text, share, style.truncateOnLineBoundary ? "json-escaped" : "none"), text };
}
