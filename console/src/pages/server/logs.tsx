import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { seg } from "../../api.js";
import { useApiGet } from "../../components/data.js";
import { ErrorNote, LiveBadge, Section } from "../../components/ui.js";
import { type LogLine, useLogStream } from "../../live-logs.js";

/** Lines kept on the page; older ones scroll away. */
const MAX_LINES = 500;

/**
 * The server's last log lines (`GET /mcp_servers/{id}/logs`), then every new one as the log stream
 * (`/api/ws/providers/{id}/logs`, the same permission) sends it.
 */
export function LogsSection({ id }: { id: string }) {
  const initial = useApiGet<{ logs: LogLine[] }>(`/mcp_servers/${seg(id)}/logs?lines=100`);
  const [lines, setLines] = useState<LogLine[]>([]);
  /** Whether the stream has sent anything yet: from then on it is the page's source. */
  const streamed = useRef(false);
  useEffect(() => {
    if (initial.data && !streamed.current) setLines(initial.data.logs);
  }, [initial.data]);
  return (
    <Section title="Logs" actions={<LogFollower id={id} streamed={streamed} setLines={setLines} />}>
      <ErrorNote message={initial.error} />
      <LogView lines={lines} />
    </Section>
  );
}

function LogFollower(props: {
  id: string;
  streamed: { current: boolean };
  setLines: (update: (lines: LogLine[]) => LogLine[]) => void;
}) {
  const [dropped, setDropped] = useState(0);
  /** Set on each (re)connection: the stream resends the lines it keeps, which replace those shown. */
  const replace = useRef(false);
  const stream = useLogStream(props.id, {
    onOpen: () => {
      replace.current = true;
    },
    onLine: (line) => {
      const fresh = replace.current;
      replace.current = false;
      props.streamed.current = true;
      props.setLines((shown) => (fresh ? [line] : [...shown, line].slice(-MAX_LINES)));
    },
    onDropped: (count) => setDropped((total) => total + count),
  });
  return (
    <span>
      {dropped > 0 && <span class="muted">{dropped} lines missed </span>}
      <LiveBadge status={stream.status} reason={stream.reason} />
    </span>
  );
}

function LogView({ lines }: { lines: LogLine[] }) {
  const box = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  // Follows the newest line while the reader is at the bottom; leaves the scroll alone otherwise.
  useLayoutEffect(() => {
    const element = box.current;
    if (element && pinned.current) element.scrollTop = element.scrollHeight;
  }, [lines]);
  const onScroll = () => {
    const element = box.current;
    if (element) pinned.current = element.scrollHeight - element.scrollTop - element.clientHeight < 24;
  };
  if (lines.length === 0) return <p class="muted">No lines yet.</p>;
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard
    <div class="log-box" ref={box} onScroll={onScroll} tabIndex={0} role="log" aria-label="log lines">
      <ol class="log-lines">
        {lines.map((line, index) => (
          <li key={index}>
            <time class="muted" dateTime={new Date(line.recorded_at * 1000).toISOString()}>
              {new Date(line.recorded_at * 1000).toLocaleTimeString()}
            </time>{" "}
            {line.stream !== "stderr" && <span class="muted">[{line.stream}] </span>}
            <span class="log-text">{line.content}</span>
          </li>
        ))}
      </ol>
    </div>
  );
}
