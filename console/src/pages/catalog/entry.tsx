import { useState } from "preact/hooks";
import { api, seg } from "../../api.js";
import { messageOf, useApiGet, when } from "../../components/data.js";
import { ActionButton, Busy, ErrorNote, Section } from "../../components/ui.js";
import { href, navigate } from "../../router.js";
import { useCan } from "../../session.js";
import { type CatalogEntry, Tags } from "../catalog.js";

/** The answer of `POST /catalog/{entry_id}/deploy`. */
interface Deployed {
  mcp_server_id: string;
  created: boolean;
  entry_id: string;
  started: { mcp_server: string; state: string; tools: string[] } | null;
}

/** One catalog entry: its fields, Delete and Deploy for a caller who may. */
export function EntryPage({ entryId }: { entryId: string }) {
  const can = useCan();
  const entry = useApiGet<CatalogEntry>(`/catalog/${seg(entryId)}`);
  const data = entry.data;
  return (
    <div>
      <p>
        <a href={href("catalog")}>← Server catalog</a>
      </p>
      <ErrorNote message={entry.error} />
      {entry.loading && !data && <Busy label="Loading the entry…" />}
      {data && (
        <Section
          title={data.name}
          actions={
            can("DELETE /catalog/:id") && (
              <ActionButton
                label="Delete"
                busyLabel="Deleting…"
                danger
                confirm={`Delete the catalog entry ${data.name}? Servers deployed from it stay.`}
                action={() => api("DELETE", `/catalog/${seg(data.entry_id)}`)}
                onDone={() => navigate("catalog")}
              />
            )
          }
        >
          <p>{data.description}</p>
          <dl class="entry-facts">
            <dt>Mode</dt>
            <dd>{data.mode ?? "— (cannot be deployed)"}</dd>
            {data.command && (
              <>
                <dt>Command</dt>
                <dd>
                  <code>{data.command.join(" ")}</code>
                </dd>
              </>
            )}
            {data.image && (
              <>
                <dt>Image</dt>
                <dd>
                  <code>{data.image}</code>
                </dd>
              </>
            )}
            {data.endpoint && (
              <>
                <dt>Endpoint</dt>
                <dd>
                  <code>{data.endpoint}</code>
                </dd>
              </>
            )}
            <dt>Tags</dt>
            <dd>
              <Tags tags={data.tags} />
            </dd>
            <dt>Created</dt>
            <dd>
              {when(data.created_at)} by {data.created_by}
            </dd>
            <dt>Entry id</dt>
            <dd>
              <code>{data.entry_id}</code>
            </dd>
          </dl>
        </Section>
      )}
      {data && can("POST /catalog/:id/deploy") && <DeployForm entry={data} />}
    </div>
  );
}

/** Registers a server from the entry, and starts it when asked; links to the server once deployed. */
function DeployForm({ entry }: { entry: CatalogEntry }) {
  const [serverId, setServerId] = useState("");
  const [start, setStart] = useState(true);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [deployed, setDeployed] = useState<Deployed | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setDeployed(null);
    try {
      const body = { ...(serverId.trim() && { mcp_server_id: serverId.trim() }), start };
      setDeployed(await api<Deployed>("POST", `/catalog/${seg(entry.entry_id)}/deploy`, body));
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Section title="Deploy">
      <form onSubmit={submit} class="stacked" noValidate>
        <label for="deploy-id">Server id</label>
        <input
          id="deploy-id"
          type="text"
          aria-describedby="deploy-id-hint"
          value={serverId}
          onInput={(e) => setServerId((e.target as HTMLInputElement).value)}
        />
        <p class="hint" id="deploy-id-hint">
          Empty: made from the entry's name.
        </p>
        <div class="check">
          <input
            id="deploy-start"
            type="checkbox"
            checked={start}
            onChange={(e) => setStart((e.target as HTMLInputElement).checked)}
          />
          <label for="deploy-start">Start it once registered</label>
        </div>
        <div class="form-actions">
          <button type="submit" disabled={busy}>
            {busy ? "Deploying…" : "Deploy"}
          </button>
        </div>
      </form>
      {busy && <Busy label={start ? "Registering and starting the server…" : "Registering the server…"} />}
      <ErrorNote message={error} />
      {deployed && (
        <p class="ok-note" role="status">
          Deployed as <a href={href("fleet", deployed.mcp_server_id)}>{deployed.mcp_server_id}</a>
          {deployed.started
            ? `: ${deployed.started.state}, ${deployed.started.tools.length} tools.`
            : ": registered, not started."}
        </p>
      )}
    </Section>
  );
}
