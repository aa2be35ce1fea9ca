import { RequestRejected } from "../../domain/errors.js";

/**
 * The required fields a request body lacks: absent, null or an empty string, as "without the
 * field" reads (spec 1: 400 `missing_fields`). A field present with a value of the wrong kind is
 * not missing: its schema refuses it (422, naming the field).
 */
export function missingFields(body: Record<string, unknown>, keys: readonly string[]): string[] {
  return keys.filter((key) => {
    const value = Object.hasOwn(body, key) ? body[key] : undefined;
    return value === undefined || value === null || value === "";
  });
}

/** Throws 400 `missing_fields` naming them, when there are any. */
export function refuseMissing(missing: readonly string[]): void {
  if (missing.length > 0) {
    throw new RequestRejected(400, "missing_fields", `required field(s) absent: ${missing.join(", ")}`);
  }
}
