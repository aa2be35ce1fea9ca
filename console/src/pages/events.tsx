import { useCallback, useRef, useState } from "preact/hooks";
import { ErrorNote, LiveBadge, Section } from "../components/ui.js";
import { type EventFrame, useEventStream } from "../live.js";
import { EventList } from "./events/event-list.js";
import { type EventFilter, listOf, listProblem, matches, NO_FILTER } from "./events/filter.js";

/** How many of the latest events the page keeps; older ones are let go. */
const BUFFER = 500;

/**
 * The domain events as the gateway publishes them (`/api/ws/events`, `audit:read`), newest first:
 * filtered by type glob and server (by the stream) and by principal (here), paused on demand.
 */
export function EventsPage() {
  const [filter, setFilter] = useState<EventFilter>(NO_FILTER);
  const [paused, setPaused] = useState(false);
  const buffer = useRef<EventFrame[]>([]);
  const [shown, setShown] = useState<EventFrame[]>([]);
  const [held, setHeld] = useState(0);
  const pausedNow = useRef(false);
  pausedNow.current = paused;
  const onEvent = useCallback((frame: EventFrame) => {
    buffer.current = [frame, ...buffer.current].slice(0, BUFFER);
    if (pausedNow.current) setHeld((count) => count + 1);
    else setShown(buffer.current);
  }, []);
  const stream = useEventStream(
    "/ws/events",
    { event_types: filter.types, mcp_server_ids: filter.servers },
    onEvent,
  );
  const togglePause = () => {
    if (paused) {
      setShown(buffer.current);
      setHeld(0);
    }
    setPaused(!paused);
  };
  const clear = () => {
    buffer.current = [];
    setShown([]);
    setHeld(0);
  };
  const visible = shown.filter((frame) => matches(frame, filter));
  const filtered = filter.types.length > 0 || filter.servers.length > 0 || filter.principal !== "";
  return (
    <div>
      <Section title="Filters">
        <FilterForm filter={filter} onApply={setFilter} />
      </Section>
      <Section
        title="Events"
        actions={
          <>
            <LiveBadge {...stream} />
            <button type="button" aria-pressed={paused} onClick={togglePause}>
              {paused ? `Resume (${held} new)` : "Pause"}
            </button>
            <button type="button" onClick={clear}>
              Clear
            </button>
          </>
        }
      >
        <p class="muted">
          {paused ? "Paused: new events are kept but not shown. " : ""}
          {visible.length} shown of the {shown.length} latest received (the last {BUFFER} are kept).
        </p>
        {visible.length === 0 ? (
          <p class="muted">No event yet{filtered ? " that passes the filters" : ""}.</p>
        ) : (
          <EventList events={visible} />
        )}
      </Section>
    </div>
  );
}

/** The filters as typed, applied on submit (the stream is subscribed again with them). */
function FilterForm(props: { filter: EventFilter; onApply: (filter: EventFilter) => void }) {
  const [types, setTypes] = useState(props.filter.types.join(", "));
  const [servers, setServers] = useState(props.filter.servers.join(", "));
  const [principal, setPrincipal] = useState(props.filter.principal);
  const [problem, setProblem] = useState<string | null>(null);
  const apply = (event: Event) => {
    event.preventDefault();
    const next = { types: listOf(types), servers: listOf(servers), principal: principal.trim() };
    const wrong = listProblem("Event types", next.types) ?? listProblem("Server ids", next.servers);
    setProblem(wrong);
    if (!wrong) props.onApply(next);
  };
  const reset = () => {
    setTypes("");
    setServers("");
    setPrincipal("");
    setProblem(null);
    props.onApply(NO_FILTER);
  };
  const input = (set: (value: string) => void) => (event: Event) =>
    set((event.target as HTMLInputElement).value);
  return (
    <form class="filters" onSubmit={apply}>
      <div>
        <label for="event-types">Event types</label>
        <input id="event-types" value={types} onInput={input(setTypes)} placeholder="Tool*, McpServer*" />
      </div>
      <div>
        <label for="event-servers">Server ids</label>
        <input id="event-servers" value={servers} onInput={input(setServers)} placeholder="math, files" />
      </div>
      <div>
        <label for="event-principal">Principal</label>
        <input id="event-principal" value={principal} onInput={input(setPrincipal)} />
      </div>
      <div class="filter-buttons">
        <button type="submit">Apply</button>
        <button type="button" onClick={reset}>
          Reset
        </button>
      </div>
      <p class="muted small">
        Types are globs (<code>*</code>, <code>?</code>, <code>[abc]</code>), separated by commas or spaces;
        servers are exact ids; the principal is matched exactly against who acted or made a change.
      </p>
      <ErrorNote message={problem} />
    </form>
  );
}
