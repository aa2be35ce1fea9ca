import { useCallback, useRef } from "preact/hooks";
import { api, seg } from "../api.js";
import { useApiGet, when } from "../components/data.js";
import { ActionButton, ErrorNote, LiveBadge, Paged, Section } from "../components/ui.js";
import { EVENT_STREAM_ROUTE, useEventStream } from "../live.js";
import { useCan } from "../session.js";
import { type Source, SourcesSection } from "./discovery/sources.js";

interface PendingEntry {
  name: string;
  source_type: string;
  mode: string;
  connection_info: Record<string, unknown>;
  fingerprint: string;
  ttl_seconds: number;
}

interface QuarantinedEntry {
  source_type: string;
  reason: string;
  quarantined_at: string;
  connection_info: Record<string, unknown>;
  fingerprint: string;
}

/** How long the page waits after a discovery event before reloading, so a cycle's burst reloads once. */
const RELOAD_DEBOUNCE_MS = 200;

/** The discovery sources, what they found waiting in pending and quarantine; scan, approve, reject. */
export function DiscoveryPage() {
  const can = useCan();
  const sources = useApiGet<{ sources: Source[] }>("/discovery/sources");
  const pending = useApiGet<{ pending: PendingEntry[] }>("/discovery/pending");
  const quarantined = useApiGet<{ quarantined: Record<string, QuarantinedEntry> }>("/discovery/quarantined");
  const reload = useCallback(() => {
    sources.reload();
    pending.reload();
    quarantined.reload();
  }, [sources.reload, pending.reload, quarantined.reload]);
  const held = Object.entries(quarantined.data?.quarantined ?? {}).map(([name, entry]) => ({
    name,
    ...entry,
  }));
  return (
    <div>
      {can(EVENT_STREAM_ROUTE) && <DiscoveryEvents onEvent={reload} />}
      <SourcesSection sources={sources} onChange={reload} />
      <Section title="Pending">
        <p class="muted">
          Found once. The next scan that finds it unchanged moves it to quarantine, where it can be approved.
        </p>
        <ErrorNote message={pending.error} />
        {pending.data && pending.data.pending.length === 0 && <p>Nothing is pending.</p>}
        {pending.data && pending.data.pending.length > 0 && (
          <Paged
            items={pending.data.pending}
            render={(page) => (
              <div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Server</th>
                      <th scope="col">Source</th>
                      <th scope="col">Found at</th>
                      <th scope="col">Fingerprint</th>
                      <th scope="col">Forgotten in</th>
                    </tr>
                  </thead>
                  <tbody>
                    {page.map((entry) => (
                      <tr key={entry.name} data-pending={entry.name}>
                        <td>{entry.name}</td>
                        <td>
                          {entry.source_type} ({entry.mode})
                        </td>
                        <td>{placeOf(entry.connection_info)}</td>
                        <td>
                          <code>{entry.fingerprint}</code>
                        </td>
                        <td>{entry.ttl_seconds} s</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          />
        )}
      </Section>
      <Section title="Quarantined">
        <ErrorNote message={quarantined.error} />
        {quarantined.data && held.length === 0 && <p>Nothing waits in quarantine.</p>}
        {held.length > 0 && (
          <Paged
            items={held}
            render={(page) => (
              <div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Server</th>
                      <th scope="col">Reason</th>
                      <th scope="col">Found at</th>
                      <th scope="col">Since</th>
                      <th scope="col">Actions</th>
                    </tr>
                  </thead>
                  <tbody>
                    {page.map((entry) => (
                      <tr key={entry.name} data-quarantined={entry.name}>
                        <td>
                          {entry.name}
                          <div class="muted">{entry.source_type}</div>
                        </td>
                        <td>{entry.reason}</td>
                        <td>{placeOf(entry.connection_info)}</td>
                        <td>{when(entry.quarantined_at)}</td>
                        <td class="actions">
                          <Decisions name={entry.name} onDone={reload} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          />
        )}
      </Section>
    </div>
  );
}

/** Approve and reject, for a caller who may; an answer of `approved: false` is its error in words. */
function Decisions({ name, onDone }: { name: string; onDone: () => void }) {
  const can = useCan();
  const decide = async (verb: "approve" | "reject") => {
    const answer = await api<{ approved?: boolean; rejected?: boolean; error?: string }>(
      "POST",
      `/discovery/${verb}/${seg(name)}`,
    );
    if (answer.approved === false || answer.rejected === false)
      throw new Error(answer.error ?? `Not ${verb}d`);
    return answer;
  };
  return (
    <>
      {can("POST /discovery/approve/:name") && (
        <ActionButton
          label="Approve"
          busyLabel="Approving…"
          action={() => decide("approve")}
          onDone={onDone}
        />
      )}
      {can("POST /discovery/reject/:name") && (
        <ActionButton
          label="Reject"
          danger
          confirm={`Reject ${name}? Later scans ignore it until its definition changes.`}
          action={() => decide("reject")}
          onDone={onDone}
        />
      )}
    </>
  );
}

/** Where a server was found (`connection_info`), as `key: value` pairs. */
function placeOf(info: Record<string, unknown> | undefined): string {
  return Object.entries(info ?? {})
    .map(([key, value]) => `${key}: ${typeof value === "string" ? value : JSON.stringify(value)}`)
    .join(", ");
}

/** Reloads the page's lists when a discovery cycle or decision is published, with the stream's badge. */
function DiscoveryEvents({ onEvent }: { onEvent: () => void }) {
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const stream = useEventStream("/ws/events", { event_types: ["Discover*"] }, () => {
    clearTimeout(timer.current);
    timer.current = setTimeout(onEvent, RELOAD_DEBOUNCE_MS);
  });
  return (
    <p class="live-line">
      Discovery events <LiveBadge status={stream.status} reason={stream.reason} />
    </p>
  );
}
