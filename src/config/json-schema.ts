/**
 * The JSON Schema of the configuration file, generated from the zod schema (`airlock config
 * schema`, `docs/config.schema.json`, the chart's `values.schema.json` under `config`).
 *
 * It accepts what the gateway loads, for editors and for the chart to refuse a bad value before a
 * pod starts: defaults, enums and bounds come from the schema; deprecated spellings and removed keys
 * that still load (with a warning) are accepted and marked `deprecated`. Unknown keys are refused
 * where `config check` refuses them (the top level, the keys of each section, the keys of a server
 * entry or an inline group member, and policy blocks at any depth); deeper unknown keys, which the
 * loader only warns about, are accepted. Rules across fields (an issuer when OIDC is on, a canary
 * naming a member) are left to `config check`.
 *
 * Draft-07: the draft Helm 3 validates `values.schema.json` with, and that editors read.
 */
import * as z from "zod";
import { mcpServersJsonSchema } from "./json-schema-servers.js";
import { CLOSED_MARK, type JsonSchema, jsonSchemaHint } from "./schema/json-hints.js";
import { mcpServersSchema } from "./schema/mcp-servers.js";
import { configSchema } from "./schema.js";
import { EXTENSION_KEY_PREFIX } from "./validate.js";

export type { JsonSchema } from "./schema/json-hints.js";

export const JSON_SCHEMA_DRAFT = "http://json-schema.org/draft-07/schema#";

/** A string holding a `${NAME}` reference, which the chart's init container fills in from the environment. */
export const REFERENCE_SCHEMA: JsonSchema = {
  type: "string",
  pattern: "\\$\\{[A-Z_][A-Z0-9_]*\\}",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the reference syntax, not a template
  description: "a ${NAME} reference, filled in from the environment when the configuration is rendered",
};

/**
 * zod leaves out, in input mode, the default of a value that a transform reads (`logging.level`,
 * a group's `strategy`): it is an output value. Ours are also valid input, and editors show them.
 */
function restoreDefault(zodSchema: unknown, jsonSchema: JsonSchema): void {
  const def = (zodSchema as { _zod?: { def?: { type?: string; defaultValue?: unknown } } })._zod?.def;
  if (def?.type !== "default" || "default" in jsonSchema) return;
  const value = def.defaultValue;
  if (value === undefined || typeof value === "function") return;
  jsonSchema.default = JSON.parse(JSON.stringify(value));
}

function render(schema: z.ZodType): JsonSchema {
  const json = z.toJSONSchema(schema, {
    target: "draft-07",
    io: "input",
    // A transform or custom check has no JSON form: it accepts anything rather than failing.
    unrepresentable: "any",
    override: ({ zodSchema, jsonSchema }) => {
      restoreDefault(zodSchema, jsonSchema);
      const replacement =
        zodSchema === mcpServersSchema
          ? mcpServersJsonSchema(render)
          : jsonSchemaHint(zodSchema)?.(render, { ...jsonSchema });
      if (replacement === undefined) return;
      for (const key of Object.keys(jsonSchema)) delete jsonSchema[key];
      Object.assign(jsonSchema, replacement);
    },
  }) as JsonSchema;
  delete json.$schema;
  return json;
}

type Path = readonly string[];

/** Levels whose unknown keys `config check` refuses (see `isCheckedLevel` in issues.ts). */
function refusesUnknownKeys(path: Path): boolean {
  if (path.length <= 1) return true;
  if (path[0] !== "mcp_servers") return false;
  return path.length === 2 || (path.length === 4 && path[2] === "members");
}

/** Keeps `additionalProperties: false` only where the loader refuses unknown keys. */
function relax(node: unknown, path: Path): void {
  if (typeof node !== "object" || node === null) return;
  if (Array.isArray(node)) {
    for (const item of node) relax(item, path);
    return;
  }
  const schema = node as JsonSchema;
  const closed = schema[CLOSED_MARK] === true;
  delete schema[CLOSED_MARK];
  if (schema.additionalProperties === false && !closed && !refusesUnknownKeys(path)) {
    delete schema.additionalProperties;
  }
  for (const [key, child] of Object.entries((schema.properties ?? {}) as Record<string, unknown>)) {
    relax(child, [...path, key]);
  }
  for (const child of Object.values((schema.patternProperties ?? {}) as Record<string, unknown>)) {
    relax(child, [...path, "*"]);
  }
  relax(schema.additionalProperties, [...path, "*"]);
  relax(schema.items, [...path, "[]"]);
  for (const key of ["anyOf", "oneOf", "allOf", "if", "then", "else"]) relax(schema[key], path);
}

function isComposite(schema: JsonSchema): boolean {
  const types = ([] as unknown[]).concat(schema.type ?? []);
  return types.includes("object") || types.includes("array");
}

/** A scalar rule that a `${NAME}` string would break: a non-string type, an enum, a pattern. */
function constrainsScalar(schema: JsonSchema): boolean {
  if (isComposite(schema)) return false;
  if (Array.isArray(schema.anyOf))
    return (schema.anyOf as JsonSchema[]).every((branch) => !isComposite(branch));
  if (schema.enum !== undefined || schema.const !== undefined) return true;
  if (schema.pattern !== undefined) return true;
  return schema.type !== undefined && schema.type !== "string";
}

/**
 * Lets every constrained scalar also be a `${NAME}` reference: in the chart the configuration is a
 * template whose references are filled in from Secrets after validation.
 */
function allowReferences(node: unknown): unknown {
  if (typeof node !== "object" || node === null) return node;
  if (Array.isArray(node)) return node.map(allowReferences);
  const schema = node as JsonSchema;
  if (constrainsScalar(schema)) {
    const { description, default: fallback, deprecated, ...rest } = schema;
    return {
      ...(description === undefined ? {} : { description }),
      ...(fallback === undefined ? {} : { default: fallback }),
      ...(deprecated === undefined ? {} : { deprecated }),
      anyOf: [rest, REFERENCE_SCHEMA],
    };
  }
  const copy: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    copy[key] =
      key === "properties" || key === "patternProperties"
        ? Object.fromEntries(Object.entries(value as JsonSchema).map(([k, v]) => [k, allowReferences(v)]))
        : ["additionalProperties", "items", "anyOf", "oneOf", "allOf", "then", "else"].includes(key)
          ? allowReferences(value)
          : value;
  }
  return copy;
}

export interface ConfigJsonSchemaOptions {
  /** Accept a `${NAME}` reference for any scalar (the chart's configuration template). */
  readonly references?: boolean;
}

/** The JSON Schema (draft-07) of the configuration file. */
export function configJsonSchema(options: ConfigJsonSchemaOptions = {}): JsonSchema {
  const generated = structuredClone(render(configSchema));
  relax(generated, []);
  const body: JsonSchema = {
    ...generated,
    type: ["object", "null"],
    patternProperties: {
      [`^${EXTENSION_KEY_PREFIX}`]: {
        description: "ignored: holds YAML anchors for reuse (x-defaults: &defaults)",
      },
    },
  };
  const schema = options.references === true ? (allowReferences(body) as JsonSchema) : body;
  return {
    $schema: JSON_SCHEMA_DRAFT,
    title: "Airlock configuration file",
    description: "config.yaml of the Airlock MCP gateway; generated by `airlock config schema`",
    ...schema,
  };
}

/**
 * The chart's `values.schema.json` with the configuration's schema under `config`: references
 * allowed (the chart fills them in from Secrets), every other value of the chart left as it is.
 */
export function chartValuesSchema(values: JsonSchema): JsonSchema {
  const {
    $schema: _draft,
    title: _title,
    description: _description,
    ...config
  } = configJsonSchema({
    references: true,
  });
  const properties = { ...((values.properties ?? {}) as Record<string, JsonSchema>) };
  properties.config = {
    description:
      "the gateway's configuration file (docs/config.schema.json); any scalar may be a reference to an environment variable",
    ...config,
    // A Helm value is never null: an empty configuration is {}.
    type: "object",
  };
  return { ...values, properties };
}
