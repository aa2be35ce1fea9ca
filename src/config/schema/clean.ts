/**
 * Which parts of a partly refused value can be trusted. zod keeps going after a refusal (so every
 * problem is reported at once); refinements that read other fields use this to skip the broken ones.
 */
import type * as z from "zod";

type Path = readonly PropertyKey[];

function startsWith(path: Path, prefix: Path): boolean {
  return prefix.every((segment, index) => path[index] === segment);
}

/** Issues that make a value untrustworthy (warnings and unknown keys do not). */
function isBlocking(issue: z.core.$ZodRawIssue | z.core.$ZodIssue): boolean {
  if (issue.code === "unrecognized_keys") return false;
  const params = (issue as { params?: { warning?: unknown } }).params;
  return params?.warning === undefined;
}

/** `clean(path)`: nothing at, above or below `path` (relative to the refinement) was refused. */
export function cleanChecker(issues: readonly (z.core.$ZodRawIssue | z.core.$ZodIssue)[]) {
  const blocking = issues.filter(isBlocking).map((issue) => issue.path ?? []);
  return (path: Path) =>
    !blocking.some((issuePath) => startsWith(issuePath, path) || startsWith(path, issuePath));
}
