import { Json, Paged } from "../../components/ui.js";
import type { EventFrame } from "../../live.js";
import { principalOf, serverOf } from "./filter.js";

/** Events, newest first, a page at a time; each event's fields shown on demand. */
export function EventList({ events }: { events: readonly EventFrame[] }) {
  return (
    <Paged
      items={events}
      pageSize={50}
      render={(page) => (
        <ol class="events">
          {page.map((frame) => {
            const server = serverOf(frame);
            const principal = principalOf(frame);
            return (
              <li key={frame.event_id} class="event" data-event-type={frame.event_type}>
                <div class="event-line">
                  <span class="muted">{timeOf(frame.occurred_at)}</span>
                  <strong class="event-type">{frame.event_type}</strong>
                  {server && <span>server {server}</span>}
                  {principal && <span>by {principal}</span>}
                </div>
                <details>
                  <summary>Fields</summary>
                  <Json value={frame} />
                </details>
              </li>
            );
          })}
        </ol>
      )}
    />
  );
}

/** Epoch seconds as the local time of day, to the millisecond. */
function timeOf(seconds: number): string {
  return new Date(seconds * 1000).toLocaleTimeString(undefined, {
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    fractionalSecondDigits: 3,
  });
}
