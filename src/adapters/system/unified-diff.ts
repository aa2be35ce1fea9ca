import { createTwoFilesPatch, FILE_HEADERS_ONLY } from "diff";

/** Unchanged lines shown around each change, as `diff -u` does. */
const CONTEXT_LINES = 3;

/**
 * A unified diff (`---`/`+++` headers, then `@@` hunks) turning `before` into `after` line by line,
 * as `patch` applies it; the empty string when both texts are equal.
 */
export function unifiedDiff(
  before: string,
  after: string,
  labels: { before: string; after: string },
): string {
  if (before === after) return "";
  return createTwoFilesPatch(labels.before, labels.after, before, after, undefined, undefined, {
    context: CONTEXT_LINES,
    headerOptions: FILE_HEADERS_ONLY,
  });
}
