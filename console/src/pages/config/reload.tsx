import { useState } from "preact/hooks";
import { api } from "../../api.js";
import { messageOf } from "../../components/data.js";
import { Busy, ErrorNote } from "../../components/ui.js";

interface ReloadAnswer {
  status: string;
  result: {
    success: boolean;
    config_path: string;
    mcp_servers_added: string[];
    mcp_servers_removed: string[];
    mcp_servers_updated: string[];
    mcp_servers_unchanged: string[];
    duration_ms: number;
    restart_required?: string[];
  };
}

/**
 * `POST /config/reload`: reads the file the gateway was started with again; shows progress while
 * it runs, then what it added, removed, updated and left alone.
 */
export function ReloadConfig({ onDone }: { onDone: () => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [answer, setAnswer] = useState<ReloadAnswer | null>(null);
  const run = async () => {
    if (!window.confirm("Reload the configuration file? Removed and changed servers are stopped.")) return;
    setBusy(true);
    setError(null);
    setAnswer(null);
    try {
      setAnswer(await api<ReloadAnswer>("POST", "/config/reload", {}));
      onDone();
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setBusy(false);
    }
  };
  const result = answer?.result;
  return (
    <div>
      <p>
        Reads the configuration file again and applies it: added servers are registered (cold), removed ones
        stopped and removed, changed ones restarted cold; running servers left unchanged keep running. A file
        that does not pass is refused whole, and nothing changes.
      </p>
      <button type="button" class="primary" disabled={busy} aria-busy={busy} onClick={run}>
        Reload from file
      </button>
      {busy && <Busy label="Reloading the configuration file…" />}
      <ErrorNote message={error} />
      {result && (
        <div class="reload-result" role="status">
          <p>
            Reloaded <code>{result.config_path}</code> in {result.duration_ms} ms.
          </p>
          <dl class="summary-facts">
            <ServerList label="Added" ids={result.mcp_servers_added} />
            <ServerList label="Removed" ids={result.mcp_servers_removed} />
            <ServerList label="Updated" ids={result.mcp_servers_updated} />
            <ServerList label="Unchanged" ids={result.mcp_servers_unchanged} />
            {result.restart_required && result.restart_required.length > 0 && (
              <ServerList label="Changed, needs a restart" ids={result.restart_required} />
            )}
          </dl>
        </div>
      )}
    </div>
  );
}

function ServerList({ label, ids }: { label: string; ids: string[] }) {
  return (
    <>
      <dt>
        {label} ({ids.length})
      </dt>
      <dd data-reload={label.toLowerCase()}>{ids.length === 0 ? "—" : ids.join(", ")}</dd>
    </>
  );
}
