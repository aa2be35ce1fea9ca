/**
 * A parsed JSON object that a schema copying it (zod's objects) would leave as it is: an object,
 * not an array, without an own `__proto__` key (`JSON.parse` makes that key an own property, and
 * such a copy drops it).
 */
export function isPlainJsonObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === "object" && value !== null && !Array.isArray(value) && !Object.hasOwn(value, "__proto__")
  );
}
