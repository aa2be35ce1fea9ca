import { useCallback, useEffect, useRef } from "preact/hooks";
import { type EventFrame, type StreamFilter, useEventStream } from "../live.js";
import { LiveBadge } from "./ui.js";

/** How long a page waits after a state change before reloading, so a burst reloads once. */
const RELOAD_DEBOUNCE_MS = 150;

/**
 * Keeps a page current from `/api/ws/state`: calls `onChange` (once per burst) after each state
 * change the filter lets through, and shows whether the page is live. The stream needs
 * `audit:read`; while it is closed (refused, with the gateway's reason, or reconnecting) a Refresh
 * button reloads by hand.
 */
export function StateFollower(props: { filter: StreamFilter; onChange: () => void }) {
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const latest = useRef(props.onChange);
  latest.current = props.onChange;
  useEffect(() => () => clearTimeout(timer.current), []);
  const onEvent = useCallback((_event: EventFrame) => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => latest.current(), RELOAD_DEBOUNCE_MS);
  }, []);
  const stream = useEventStream("/ws/state", props.filter, onEvent);
  return (
    <span>
      <LiveBadge status={stream.status} reason={stream.reason} />
      {stream.status === "closed" && (
        <button type="button" class="inline-button" onClick={props.onChange}>
          Refresh
        </button>
      )}
    </span>
  );
}
