import type { z } from "zod";
import { type GatewayError, validationError } from "../domain/errors.js";

/** A zod failure as a ValidationError naming the first field and its rule, with every issue in details. */
export function zodValidation(error: z.ZodError): GatewayError {
  const issues = error.issues.map((issue) => ({
    field: issue.path.join(".") || "(body)",
    rule: issue.message,
  }));
  const first = issues[0] ?? { field: "(body)", rule: "invalid" };
  return validationError(`Invalid field '${first.field}': ${first.rule}`, { issues });
}
