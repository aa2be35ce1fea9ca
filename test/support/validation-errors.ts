import { expect } from "vitest";
import { UNKNOWN_FIELD_RULE } from "../../src/app/validation.js";

/** Asserts the one answer to a field a route does not take: 422 ValidationError naming it. */
export function expectUnknownField(response: { statusCode: number; json(): unknown }, field: string): void {
  expect([response.statusCode, response.json()]).toEqual([
    422,
    {
      error: {
        code: "ValidationError",
        message: `Invalid field '${field}': ${UNKNOWN_FIELD_RULE}`,
        details: { issues: [{ field, rule: UNKNOWN_FIELD_RULE }] },
      },
    },
  ]);
}
