import { useState } from "preact/hooks";
import { seg } from "../../api.js";
import { useApiGet, when } from "../../components/data.js";
import { ErrorNote, Section } from "../../components/ui.js";

/** A `ToolInvocationCompleted` or `ToolInvocationFailed` event of the server's stream. */
interface Invocation {
  event_type: string;
  version: number;
  tool_name: string;
  call_id: string;
  duration_ms: number;
  occurred_at?: number;
  result_size_bytes?: number;
  is_error?: boolean;
  error_type?: string;
  error_message?: string;
  requested_by?: string;
  route_backend?: string;
}

const PAGE_SIZE = 25;

/**
 * The server's tool invocations, oldest first, a page at a time by stream version
 * (`GET /mcp_servers/{id}/tools/history?limit=&from_position=`). Refresh reloads it, and calls
 * `onRefresh` (the page's health counters move with each invocation too).
 */
export function HistorySection({ id, onRefresh }: { id: string; onRefresh?: () => void }) {
  /** Where each page shown so far began: the last is the current page. */
  const [starts, setStarts] = useState<number[]>([0]);
  const from = starts[starts.length - 1] ?? 0;
  const history = useApiGet<{ history: Invocation[] }>(
    `/mcp_servers/${seg(id)}/tools/history?limit=${PAGE_SIZE}&from_position=${from}`,
  );
  const entries = history.data?.history ?? [];
  const last = entries[entries.length - 1];
  const full = entries.length === PAGE_SIZE;
  return (
    <Section
      title="Invocations"
      actions={
        <button
          type="button"
          onClick={() => {
            history.reload();
            onRefresh?.();
          }}
        >
          Refresh
        </button>
      }
    >
      <ErrorNote message={history.error} />
      {history.data && entries.length === 0 && (
        <p class="muted">{starts.length > 1 ? "No later invocations." : "No invocations recorded."}</p>
      )}
      {entries.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">Tool</th>
                <th scope="col">Outcome</th>
                <th scope="col">Duration</th>
                <th scope="col">Caller</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((entry) => (
                <tr key={entry.version}>
                  <td>
                    {entry.version}
                    {entry.occurred_at !== undefined && <div class="muted">{when(entry.occurred_at)}</div>}
                  </td>
                  <td>
                    {entry.tool_name}
                    {entry.route_backend && <div class="muted">via {entry.route_backend}</div>}
                  </td>
                  <td>
                    <Outcome entry={entry} />
                  </td>
                  <td>{entry.duration_ms} ms</td>
                  <td>{entry.requested_by ?? "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {(starts.length > 1 || full) && (
        <nav class="pager" aria-label="invocation pages">
          <button
            type="button"
            disabled={starts.length === 1}
            onClick={() => setStarts((shown) => shown.slice(0, -1))}
          >
            Earlier
          </button>
          <span>Page {starts.length}</span>
          <button
            type="button"
            disabled={!full || !last}
            onClick={() => last && setStarts((shown) => [...shown, last.version + 1])}
          >
            Later
          </button>
        </nav>
      )}
    </Section>
  );
}

function Outcome({ entry }: { entry: Invocation }) {
  if (entry.event_type === "ToolInvocationFailed") {
    return (
      <span>
        <span class="badge state-dead">failed</span> {entry.error_type}
        {entry.error_message && <div class="muted">{entry.error_message}</div>}
      </span>
    );
  }
  if (entry.is_error) return <span class="badge state-degraded">tool error</span>;
  return (
    <span>
      <span class="badge state-ready">ok</span>
      {entry.result_size_bytes !== undefined && <span class="muted"> {entry.result_size_bytes} bytes</span>}
    </span>
  );
}
