import { useEffect, useState } from "preact/hooks";
import { messageOf } from "../../components/data.js";
import { ErrorNote, Json, Section } from "../../components/ui.js";
import { EVENT_STREAM_ROUTE } from "../../live.js";
import { useCan } from "../../session.js";
import { ApprovalWatch, Progress, useHold } from "./hold.js";
import { ResultView } from "./result-view.js";
import { argumentsOf, type Draft, fieldId, initialDraft, type Problems, type Schema } from "./schema.js";
import { SchemaForm } from "./schema-form.js";
import { type CallOutcome, callTool } from "./tool-call.js";

/** A tool as `GET /mcp_servers/{id}/tools` lists it. */
export interface ToolInfo {
  name: string;
  description?: string;
  inputSchema?: Schema;
  outputSchema?: Schema;
  digest?: string;
}

/** The form of one tool, its call with progress, and the result. */
export function CallForm(props: { server: string; isGroup: boolean; tool: ToolInfo }) {
  const can = useCan();
  const schema: Schema = props.tool.inputSchema ?? { type: "object", properties: {} };
  const [draft, setDraft] = useState<Draft>(() => initialDraft(schema));
  const [asJson, setAsJson] = useState(false);
  const [jsonText, setJsonText] = useState("{}");
  const [problems, setProblems] = useState<Problems>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<CallOutcome | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [running, setRunning] = useState<{ started: number; abort: AbortController } | null>(null);
  const [elapsed, setElapsed] = useState(0);

  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => setElapsed(Math.round((Date.now() - running.started) / 1000)), 1000);
    return () => clearInterval(timer);
  }, [running]);
  useEffect(() => () => running?.abort.abort(), [running]);
  const { hold, onEvent } = useHold(props.server, props.isGroup, props.tool.name, running?.started ?? null);

  const toggleJson = (on: boolean) => {
    if (on) setJsonText(JSON.stringify(argumentsOf(schema, draft).value, null, 2));
    setProblems({});
    setFormError(null);
    setAsJson(on);
  };

  /** The arguments to send, or null when a field stops the call (shown at the field). */
  const readArguments = (): Record<string, unknown> | null => {
    if (asJson) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(jsonText || "{}");
      } catch (error) {
        setFormError(`The arguments are not valid JSON: ${messageOf(error)}`);
        return null;
      }
      if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
        setFormError("The arguments must be a JSON object.");
        return null;
      }
      const missing = (schema.required ?? []).filter((name) => !(name in parsed));
      if (missing.length > 0) {
        setFormError(`Required: ${missing.join(", ")}.`);
        return null;
      }
      return parsed as Record<string, unknown>;
    }
    const read = argumentsOf(schema, draft);
    setProblems(read.problems);
    const first = Object.keys(read.problems)[0];
    if (first) {
      setFormError(`Fix the marked fields first (${Object.keys(read.problems).length}).`);
      document.getElementById(first)?.focus();
      return null;
    }
    return read.value;
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    setFormError(null);
    const args = readArguments();
    if (!args) return;
    const abort = new AbortController();
    setOutcome(null);
    setFailure(null);
    setElapsed(0);
    setRunning({ started: Date.now(), abort });
    try {
      setOutcome(await callTool(props.server, props.tool.name, args, abort.signal));
    } catch (error) {
      setFailure(messageOf(error));
    } finally {
      setRunning(null);
    }
  };

  return (
    <Section title={`${props.tool.name} on ${props.server}`}>
      {can(EVENT_STREAM_ROUTE) && <ApprovalWatch onEvent={onEvent} />}
      {props.tool.description && <p>{props.tool.description}</p>}
      <form onSubmit={submit} noValidate>
        <div class="check">
          <input
            id="pg-as-json"
            type="checkbox"
            checked={asJson}
            onChange={(e) => toggleJson((e.target as HTMLInputElement).checked)}
          />
          <label for="pg-as-json">Edit the arguments as JSON</label>
        </div>
        {asJson ? (
          <>
            <label for={fieldId(["json"])}>Arguments (JSON object)</label>
            <textarea
              id={fieldId(["json"])}
              class="json-input"
              rows={8}
              spellcheck={false}
              value={jsonText}
              onInput={(e) => setJsonText((e.target as HTMLTextAreaElement).value)}
            />
          </>
        ) : (
          <SchemaForm schema={schema} draft={draft} problems={problems} onChange={setDraft} />
        )}
        <ErrorNote message={formError} />
        <div class="form-actions">
          <button type="submit" disabled={running !== null}>
            {running ? "Calling…" : "Call"}
          </button>
          {running && (
            <button type="button" onClick={() => running.abort.abort()}>
              Cancel
            </button>
          )}
        </div>
      </form>
      {running && <Progress elapsed={elapsed} hold={hold} tool={props.tool.name} server={props.server} />}
      <ErrorNote message={failure} />
      {outcome && <ResultView outcome={outcome} />}
      {props.tool.outputSchema && (
        <details>
          <summary>Output schema</summary>
          <Json value={props.tool.outputSchema} />
        </details>
      )}
    </Section>
  );
}
