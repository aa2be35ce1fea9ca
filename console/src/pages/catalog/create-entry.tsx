import { useState } from "preact/hooks";
import { api } from "../../api.js";
import { messageOf } from "../../components/data.js";
import { ErrorNote, Section } from "../../components/ui.js";
import type { CatalogEntry } from "../catalog.js";

const MODES = ["subprocess", "docker", "remote"] as const;

const EMPTY = { name: "", description: "", mode: "", command: "", image: "", endpoint: "", tags: "" };

/** A new catalog entry (`POST /catalog/`): what a server of it would run; nothing runs until it is deployed. */
export function CreateEntry({ onCreated }: { onCreated: (entry: CatalogEntry) => void }) {
  const [fields, setFields] = useState(EMPTY);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const field = (name: keyof typeof EMPTY) => ({
    id: `new-${name}`,
    value: fields[name],
    onInput: (event: Event) =>
      setFields({ ...fields, [name]: (event.target as HTMLInputElement | HTMLTextAreaElement).value }),
  });
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const command = fields.command
      .split("\n")
      .map((item) => item.trim())
      .filter(Boolean);
    const tags = fields.tags
      .split(",")
      .map((tag) => tag.trim())
      .filter(Boolean);
    const body = {
      name: fields.name.trim(),
      description: fields.description.trim(),
      ...(fields.mode && { mode: fields.mode }),
      ...(command.length > 0 && { command }),
      ...(fields.image.trim() && { image: fields.image.trim() }),
      ...(fields.endpoint.trim() && { endpoint: fields.endpoint.trim() }),
      ...(tags.length > 0 && { tags }),
    };
    try {
      const entry = await api<CatalogEntry>("POST", "/catalog/", body);
      setFields(EMPTY);
      onCreated(entry);
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Section title="New entry">
      <form onSubmit={submit} class="stacked" noValidate>
        <label for="new-name">Name</label>
        <input {...field("name")} type="text" required maxLength={128} />
        <label for="new-description">Description</label>
        <textarea {...field("description")} rows={2} required />
        <label for="new-mode">Mode</label>
        <select
          id="new-mode"
          value={fields.mode}
          onChange={(event) => setFields({ ...fields, mode: (event.target as HTMLSelectElement).value })}
        >
          <option value="">(none: cannot be deployed)</option>
          {MODES.map((mode) => (
            <option key={mode} value={mode}>
              {mode}
            </option>
          ))}
        </select>
        <label for="new-command">Command (subprocess: one item a line)</label>
        <textarea {...field("command")} rows={3} spellcheck={false} />
        <label for="new-image">Image (docker)</label>
        <input {...field("image")} type="text" />
        <label for="new-endpoint">Endpoint (remote: an http(s) URL)</label>
        <input {...field("endpoint")} type="url" />
        <label for="new-tags">Tags (comma-separated)</label>
        <input {...field("tags")} type="text" />
        <ErrorNote message={error} />
        <div class="form-actions">
          <button type="submit" disabled={busy}>
            {busy ? "Creating…" : "Create entry"}
          </button>
        </div>
      </form>
    </Section>
  );
}
