/**
 * How a few schema pieces appear in the JSON Schema of the configuration (`airlock config schema`)
 * where zod's own conversion cannot tell: a value read through a hand-written check (a deprecated
 * spelling, a closed mapping) converts to "anything". The piece registers its JSON form here, next
 * to its definition; parsing never reads this.
 */
import type * as z from "zod";

/** A JSON Schema fragment. */
export type JsonSchema = { [key: string]: unknown };

/** Renders another zod schema as JSON Schema, with the same options and hints. */
export type RenderJsonSchema = (schema: z.ZodType) => JsonSchema;

/** Returns the JSON Schema of the registered piece, replacing zod's conversion of it. */
export type JsonSchemaHint = (render: RenderJsonSchema, converted: JsonSchema) => JsonSchema;

const hints = new WeakMap<object, JsonSchemaHint>();

/** Registers `hint` for `schema` (this exact instance) and returns the schema. */
export function withJsonSchema<T extends z.ZodType>(schema: T, hint: JsonSchemaHint): T {
  hints.set(schema, hint);
  return schema;
}

/** The hint registered for `schema`, if any. */
export function jsonSchemaHint(schema: object): JsonSchemaHint | undefined {
  return hints.get(schema);
}

/**
 * Marks an object whose unknown keys are refused at any depth (policy blocks): the generator keeps
 * `additionalProperties: false` on it even where the loader only warns about unknown keys.
 */
export const CLOSED_MARK = "x-airlock-closed";
