import type { z } from "zod";
import { GatewayError } from "../domain/errors.js";

/** The rule a field an input does not take is refused with, wherever it is found. */
export const UNKNOWN_FIELD_RULE = "is not a field this request takes";

interface FieldIssue {
  field: string;
  rule: string;
}

/**
 * A zod failure as a ValidationError naming the first field and its rule, with every issue in
 * details. A key a strict object does not take (`z.strictObject`) is named itself, one issue per
 * key, so `{tools: ...}` sent where no `tools` is taken reads `Invalid field 'tools': ...`.
 */
export function zodValidation(error: z.ZodError): GatewayError {
  const issues = error.issues.flatMap((issue): FieldIssue[] => {
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => ({ field: [...issue.path, key].join("."), rule: UNKNOWN_FIELD_RULE }));
    }
    return [{ field: issue.path.join(".") || "(body)", rule: issue.message }];
  });
  return fieldIssues(issues);
}

/**
 * The ValidationError of a field the request may not carry (an edge's own check, such as a body
 * field that repeats a path parameter), in the shape of a schema refusal.
 */
export function unknownField(field: string): GatewayError {
  return fieldIssues([{ field, rule: UNKNOWN_FIELD_RULE }]);
}

/**
 * The ValidationError of input refused before anything ran, naming the first field and its rule
 * with every issue in details; on MCP an `isError` result naming each field (spec 2 §4, shape 2).
 */
export function fieldIssues(issues: readonly FieldIssue[]): GatewayError {
  const first = issues[0] ?? { field: "(body)", rule: "invalid" };
  return new GatewayError(
    "ValidationError",
    `Invalid field '${first.field}': ${first.rule}`,
    { issues },
    {
      mcp: "refused",
    },
  );
}
