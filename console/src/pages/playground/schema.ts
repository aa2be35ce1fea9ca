/**
 * A tool's `inputSchema` (JSON Schema) as a form: what each field is, the form's values (drafts, as
 * the inputs hold them), and the arguments they make, with the problems that stop a call.
 */

export interface Schema {
  type?: string | string[];
  enum?: unknown[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema | Schema[];
  description?: string;
  title?: string;
  default?: unknown;
  [keyword: string]: unknown;
}

/** What a field is in the form; `json` is a text area of JSON for what the form cannot express. */
export type Kind = "string" | "number" | "integer" | "boolean" | "enum" | "array" | "object" | "json";

/** A field's value as its input holds it: text, a checkbox, a list or the fields of an object. */
export type Draft = string | boolean | undefined | Draft[] | { [key: string]: Draft };

/** A path to a field: property names and list indexes. */
export type Path = readonly (string | number)[];

const SIMPLE = new Set(["string", "number", "integer", "boolean"]);

/** The one type a schema names, `null` aside; undefined when none or several. */
function typeOf(schema: Schema): string | undefined {
  const types = Array.isArray(schema.type) ? schema.type.filter((type) => type !== "null") : [schema.type];
  return types.length === 1 ? types[0] : undefined;
}

const COMPOSED = ["anyOf", "oneOf", "allOf", "$ref", "not", "if", "patternProperties"];

export function kindOf(schema: Schema | undefined): Kind {
  if (!schema || typeof schema !== "object") return "json";
  if (COMPOSED.some((keyword) => keyword in schema)) return "json";
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return "enum";
  const type = typeOf(schema);
  if (type && SIMPLE.has(type)) return type as Kind;
  if (type === "array") {
    const items = schema.items;
    return items && !Array.isArray(items) && kindOf(items) !== "json" ? "array" : "json";
  }
  // Declared fields only: an object without `properties` (a free-form map) is JSON.
  if (type === "object" || (type === undefined && schema.properties))
    return schema.properties ? "object" : "json";
  return "json";
}

/** The draft a field starts with: its schema's default, or empty. */
export function initialDraft(schema: Schema | undefined): Draft {
  const kind = kindOf(schema);
  const given = schema?.default;
  switch (kind) {
    case "string":
    case "number":
    case "integer":
      return given === undefined ? "" : String(given);
    case "boolean":
      return typeof given === "boolean" ? String(given) : "";
    case "enum": {
      const index = schema?.enum?.findIndex((value) => JSON.stringify(value) === JSON.stringify(given)) ?? -1;
      return index < 0 ? "" : String(index);
    }
    case "array":
      return Array.isArray(given) ? given.map((value) => draftOf(itemSchema(schema), value)) : [];
    case "object":
      return Object.fromEntries(
        Object.entries(schema?.properties ?? {}).map(([name, property]) => [name, initialDraft(property)]),
      );
    default:
      return given === undefined ? "" : JSON.stringify(given, null, 2);
  }
}

/** The draft of a value a schema describes (a default's items). */
function draftOf(schema: Schema | undefined, value: unknown): Draft {
  return initialDraft({ ...schema, default: value });
}

export function itemSchema(schema: Schema | undefined): Schema | undefined {
  const items = schema?.items;
  return items && !Array.isArray(items) ? items : undefined;
}

/** A field that stops the call, by its id in the form. */
export type Problems = Record<string, string>;

/** The id of a field's input: `arg-` and its path. */
export function fieldId(path: Path): string {
  return `arg-${path.map((part) => String(part).replace(/[^A-Za-z0-9_-]/g, "_")).join("-")}`;
}

/** The arguments the drafts make, or the problems found (a required field left empty, a bad number, bad JSON). */
export function argumentsOf(
  schema: Schema,
  draft: Draft,
): { value: Record<string, unknown>; problems: Problems } {
  const problems: Problems = {};
  const value = readField(schema, draft, [], true, problems);
  return {
    value:
      value.present && value.value && typeof value.value === "object"
        ? (value.value as Record<string, unknown>)
        : {},
    problems,
  };
}

type Read = { present: true; value: unknown } | { present: false };

const ABSENT: Read = { present: false };

function readField(
  schema: Schema | undefined,
  draft: Draft,
  path: Path,
  required: boolean,
  problems: Problems,
): Read {
  const id = fieldId(path);
  const missing = (): Read => {
    if (required) problems[id] = "is required";
    return ABSENT;
  };
  switch (kindOf(schema)) {
    case "string":
      return typeof draft === "string" && draft !== "" ? { present: true, value: draft } : missing();
    case "number":
    case "integer": {
      const text = typeof draft === "string" ? draft.trim() : "";
      if (text === "") return missing();
      const number = Number(text);
      if (!Number.isFinite(number)) {
        problems[id] = "must be a number";
        return ABSENT;
      }
      if (kindOf(schema) === "integer" && !Number.isInteger(number)) {
        problems[id] = "must be a whole number";
        return ABSENT;
      }
      return { present: true, value: number };
    }
    case "boolean":
      if (draft === true || draft === "true") return { present: true, value: true };
      if (draft === false || draft === "false") return { present: true, value: false };
      // A required boolean has no "not set" choice: its select shows false.
      return required ? { present: true, value: false } : ABSENT;
    case "enum": {
      const index = typeof draft === "string" && draft !== "" ? Number(draft) : -1;
      return index >= 0 ? { present: true, value: schema?.enum?.[index] } : missing();
    }
    case "array": {
      const items = Array.isArray(draft) ? draft : [];
      if (items.length === 0) return required ? { present: true, value: [] } : ABSENT;
      const values = items.map((item, index) => {
        const read = readField(itemSchema(schema), item, [...path, index], true, problems);
        return read.present ? read.value : undefined;
      });
      return { present: true, value: values };
    }
    case "object": {
      const fields = draft && typeof draft === "object" && !Array.isArray(draft) ? draft : {};
      const needed = new Set(schema?.required ?? []);
      const read = (whole: boolean, into: Problems): { present: true; value: Record<string, unknown> } => {
        const value: Record<string, unknown> = {};
        for (const [name, property] of Object.entries(schema?.properties ?? {})) {
          const field = readField(property, fields[name], [...path, name], whole && needed.has(name), into);
          if (field.present) value[name] = field.value;
        }
        return { present: true, value };
      };
      if (required) return read(true, problems);
      // An optional object is sent once one of its fields is filled in; then its required ones must be.
      const scratch: Problems = {};
      const loose = read(false, scratch);
      const touched = Object.keys(loose.value).length > 0 || Object.keys(scratch).length > 0;
      return touched ? read(true, problems) : ABSENT;
    }
    default: {
      const text = typeof draft === "string" ? draft.trim() : "";
      if (text === "") return missing();
      try {
        return { present: true, value: JSON.parse(text) };
      } catch (failure) {
        problems[id] = `is not valid JSON (${failure instanceof Error ? failure.message : String(failure)})`;
        return ABSENT;
      }
    }
  }
}

/** A copy of `draft` with the field at `path` set to `value`. */
export function withField(draft: Draft, path: Path, value: Draft): Draft {
  if (path.length === 0) return value;
  const [head, ...rest] = path as [string | number, ...(string | number)[]];
  if (typeof head === "number") {
    const list = Array.isArray(draft) ? [...draft] : [];
    list[head] = withField(list[head], rest, value);
    return list;
  }
  const record = draft && typeof draft === "object" && !Array.isArray(draft) ? { ...draft } : {};
  record[head] = withField(record[head], rest, value);
  return record;
}
