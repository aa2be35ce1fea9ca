import type { JSX } from "preact";
import {
  type Draft,
  fieldId,
  initialDraft,
  itemSchema,
  kindOf,
  type Path,
  type Problems,
  type Schema,
  withField,
} from "./schema.js";

interface FieldProps {
  schema: Schema | undefined;
  path: Path;
  label: string;
  required: boolean;
  draft: Draft;
  problems: Problems;
  set: (path: Path, value: Draft) => void;
}

/** The fields of a tool's `inputSchema`, one per property; what the form cannot express is a JSON text area. */
export function SchemaForm(props: {
  schema: Schema;
  draft: Draft;
  problems: Problems;
  onChange: (draft: Draft) => void;
}) {
  const set = (path: Path, value: Draft) => props.onChange(withField(props.draft, path, value));
  const properties = Object.entries(props.schema.properties ?? {});
  if (kindOf(props.schema) === "object" && properties.length === 0) {
    return <p class="muted">This tool takes no arguments.</p>;
  }
  if (kindOf(props.schema) !== "object") {
    return (
      <Field
        schema={props.schema}
        path={[]}
        label="Arguments"
        required
        draft={props.draft}
        problems={props.problems}
        set={(_path, value) => props.onChange(value)}
      />
    );
  }
  const needed = new Set(props.schema.required ?? []);
  return (
    <div class="schema-form">
      {properties.map(([name, property]) => (
        <Field
          key={name}
          schema={property}
          path={[name]}
          label={property.title ?? name}
          required={needed.has(name)}
          draft={(props.draft as Record<string, Draft> | undefined)?.[name]}
          problems={props.problems}
          set={set}
        />
      ))}
    </div>
  );
}

function Field(props: FieldProps) {
  const kind = kindOf(props.schema);
  if (kind === "object") return <ObjectField {...props} />;
  if (kind === "array") return <ArrayField {...props} />;
  const id = fieldId(props.path);
  const problem = props.problems[id];
  const description = props.schema?.description;
  const described =
    [description && `${id}-hint`, problem && `${id}-error`].filter(Boolean).join(" ") || undefined;
  const text = typeof props.draft === "string" ? props.draft : "";
  const common = {
    id,
    "aria-describedby": described,
    "aria-invalid": problem ? true : undefined,
    "aria-required": props.required || undefined,
  };
  const onText = (event: Event) =>
    props.set(props.path, (event.target as HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement).value);
  let input: JSX.Element;
  switch (kind) {
    case "string":
      input = <input {...common} type="text" value={text} onInput={onText} />;
      break;
    case "number":
    case "integer":
      input = (
        <input
          {...common}
          type="text"
          inputMode={kind === "integer" ? "numeric" : "decimal"}
          value={text}
          onInput={onText}
        />
      );
      break;
    case "boolean":
      input = (
        <select {...common} value={props.required && text === "" ? "false" : text} onChange={onText}>
          {!props.required && <option value="">(not set)</option>}
          <option value="true">true</option>
          <option value="false">false</option>
        </select>
      );
      break;
    case "enum":
      input = (
        <select {...common} value={text} onChange={onText}>
          <option value="">{props.required ? "(choose)" : "(not set)"}</option>
          {(props.schema?.enum ?? []).map((value, index) => (
            <option key={String(index)} value={String(index)}>
              {typeof value === "string" ? value : JSON.stringify(value)}
            </option>
          ))}
        </select>
      );
      break;
    default:
      input = (
        <textarea {...common} class="json-input" rows={4} spellcheck={false} value={text} onInput={onText} />
      );
  }
  return (
    <div class="field">
      <label for={id}>
        {props.label}
        {props.required && <span class="muted"> (required)</span>}
        {kind === "json" && <span class="muted"> (JSON)</span>}
      </label>
      {input}
      {description && (
        <p class="hint" id={`${id}-hint`}>
          {description}
        </p>
      )}
      <FieldProblem id={id} label={props.label} problem={problem} />
    </div>
  );
}

function FieldProblem({ id, label, problem }: { id: string; label: string; problem: string | undefined }) {
  if (!problem) return null;
  return (
    <p class="error field-error" id={`${id}-error`}>
      {label} {problem}
    </p>
  );
}

function ObjectField(props: FieldProps) {
  const needed = new Set(props.schema?.required ?? []);
  const fields = (props.draft && typeof props.draft === "object" ? props.draft : {}) as Record<string, Draft>;
  return (
    <fieldset class="field-group">
      <legend>
        {props.label}
        {props.required && <span class="muted"> (required)</span>}
      </legend>
      {props.schema?.description && <p class="hint">{props.schema.description}</p>}
      {Object.entries(props.schema?.properties ?? {}).map(([name, property]) => (
        <Field
          key={name}
          schema={property}
          path={[...props.path, name]}
          label={property.title ?? name}
          required={needed.has(name)}
          draft={fields[name]}
          problems={props.problems}
          set={props.set}
        />
      ))}
    </fieldset>
  );
}

function ArrayField(props: FieldProps) {
  const items = Array.isArray(props.draft) ? props.draft : [];
  const item = itemSchema(props.schema);
  const id = fieldId(props.path);
  return (
    <fieldset class="field-group">
      <legend>
        {props.label}
        {props.required && <span class="muted"> (required)</span>}
        <span class="muted"> (list)</span>
      </legend>
      {props.schema?.description && <p class="hint">{props.schema.description}</p>}
      {items.length === 0 && <p class="muted">No items.</p>}
      {items.map((value, index) => (
        <div class="list-item" key={String(index)}>
          <Field
            schema={item}
            path={[...props.path, index]}
            label={`${props.label} ${index + 1}`}
            required
            draft={value}
            problems={props.problems}
            set={props.set}
          />
          <button
            type="button"
            class="danger"
            onClick={() =>
              props.set(
                props.path,
                items.filter((_, at) => at !== index),
              )
            }
          >
            Remove {props.label} {index + 1}
          </button>
        </div>
      ))}
      <button type="button" onClick={() => props.set(props.path, [...items, initialDraft(item)])}>
        Add to {props.label}
      </button>
      <FieldProblem id={id} label={props.label} problem={props.problems[id]} />
    </fieldset>
  );
}
