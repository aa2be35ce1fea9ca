import { useState } from "preact/hooks";
import { api } from "../../api.js";
import { messageOf } from "../../components/data.js";
import { ErrorNote } from "../../components/ui.js";

/** `POST /auth/keys`: the one answer that carries the raw key. */
interface CreatedKey {
  key_id: string;
  raw_key: string;
  principal_id: string;
  name: string;
  expires_at: string | null;
}

/**
 * Creates an API key and shows it once. The raw key lives only in this component's state: never
 * written to storage, the location or the log, and gone when dismissed or when the page is left.
 */
export function CreateKey(props: {
  principal: string;
  known: string[];
  onCreated: (principal: string) => void;
}) {
  const [name, setName] = useState("");
  const [principal, setPrincipal] = useState<string | null>(null);
  const [expires, setExpires] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const owner = principal ?? props.principal;
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const body = {
        principal_id: owner.trim(),
        name,
        // The field is local time; the API takes an offset (none would mean UTC).
        ...(expires && { expires_at: new Date(expires).toISOString() }),
      };
      const answer = await api<CreatedKey>("POST", "/auth/keys", body);
      setCreated(answer);
      setName("");
      setExpires("");
      props.onCreated(answer.principal_id);
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setBusy(false);
    }
  };
  if (created) return <NewKey created={created} onDismiss={() => setCreated(null)} />;
  return (
    <form class="inline-form" onSubmit={submit}>
      <div>
        <label for="key-name">Name</label>
        <input
          id="key-name"
          required
          maxLength={256}
          autoComplete="off"
          value={name}
          onInput={(event) => setName((event.target as HTMLInputElement).value)}
        />
      </div>
      <div>
        <label for="key-principal">Principal</label>
        <input
          id="key-principal"
          required
          list="known-principals"
          autoComplete="off"
          value={owner}
          onInput={(event) => setPrincipal((event.target as HTMLInputElement).value)}
        />
        <datalist id="known-principals">
          {props.known.map((id) => (
            <option key={id} value={id} />
          ))}
        </datalist>
      </div>
      <div>
        <label for="key-expires">Expires (local time; empty: never)</label>
        <input
          id="key-expires"
          type="datetime-local"
          value={expires}
          onInput={(event) => setExpires((event.target as HTMLInputElement).value)}
        />
      </div>
      <button type="submit" disabled={busy || name.trim() === "" || owner.trim() === ""} aria-busy={busy}>
        {busy ? "Creating…" : "Create key"}
      </button>
      <ErrorNote message={error} />
      <p class="muted full">
        The key belongs to the principal and carries its roles. The API takes no tenant for a key: keys
        created here have none.
      </p>
    </form>
  );
}

function NewKey({ created, onDismiss }: { created: CreatedKey; onDismiss: () => void }) {
  const [copied, setCopied] = useState<string | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(created.raw_key);
      setCopied("Copied to the clipboard.");
    } catch {
      const field = document.getElementById("new-key") as HTMLInputElement | null;
      field?.select();
      setCopied("The browser refused the clipboard: the key is selected, copy it with the keyboard.");
    }
  };
  return (
    <div class="key-once">
      <p class="warning" role="alert">
        Copy this key now: it will not be shown again. The gateway keeps only its SHA-256, and this page
        forgets it when you leave.
      </p>
      <label for="new-key">
        New API key “{created.name}” for {created.principal_id}
      </label>
      <div class="inline-form">
        <input
          id="new-key"
          class="secret"
          readOnly
          value={created.raw_key}
          autoComplete="off"
          spellcheck={false}
          onFocus={(event) => (event.target as HTMLInputElement).select()}
        />
        <button type="button" class="primary" onClick={copy}>
          Copy
        </button>
        <button type="button" onClick={onDismiss}>
          Done
        </button>
      </div>
      {copied && <p role="status">{copied}</p>}
      <p class="muted">
        Key id <code>{created.key_id}</code>; expires {created.expires_at ?? "never"}.
      </p>
    </div>
  );
}
