import type { ComponentChildren } from "preact";
import { when } from "../../components/data.js";
import { Json } from "../../components/ui.js";

/** The `dead` object of a server (spec 1 §2): null unless its state is `dead`. */
export interface DeadInfo {
  reason: string;
  since: string;
  retry_allowed_at: string | null;
  revived_by: string;
}

/** The health object (`GET /mcp_servers/{id}/health`, and `health` in the detail). */
export interface Health {
  consecutive_failures: number;
  total_invocations: number;
  total_failures: number;
  success_rate: number;
  can_retry: boolean;
  last_success_ago: number | null;
  last_failure_ago: number | null;
}

/** The detail object (`GET /mcp_servers/{id}`). */
export interface ServerDetail {
  mcp_server_id: string;
  state: string;
  mode: string;
  alive: boolean;
  health: Health;
  idle_time: number;
  meta: Record<string, unknown>;
  dead: DeadInfo | null;
  tools: unknown[];
}

/** A duration in seconds, in words: `42 s`, `3 min`, `2 h 5 min`. */
export function duration(seconds: number): string {
  if (seconds < 60) return `${Math.round(seconds)} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
}

/** Terms and their values, as a description list. */
export function Facts({ items }: { items: [string, ComponentChildren][] }) {
  return (
    <dl class="facts">
      {items.map(([term, value]) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** State, mode, whether the process is alive, idle time, why it died, and its meta on demand. */
export function ServerFacts({ server }: { server: ServerDetail }) {
  const running = server.state === "ready" || server.state === "degraded";
  const items: [string, ComponentChildren][] = [
    ["Mode", server.mode],
    ["Process", server.alive ? "alive" : "not running"],
    ["Idle", running ? duration(server.idle_time) : "—"],
  ];
  if (typeof server.meta.started_at === "number" || typeof server.meta.started_at === "string") {
    items.push(["Started", when(server.meta.started_at)]);
  }
  if (typeof server.meta.protocol_version === "string")
    items.push(["Protocol", server.meta.protocol_version]);
  if (server.dead) {
    items.push(
      ["Dead because", server.dead.reason],
      ["Dead since", when(server.dead.since)],
      ["Retry allowed", when(server.dead.retry_allowed_at)],
      ["Revived by", server.dead.revived_by],
    );
  }
  return (
    <>
      <Facts items={items} />
      {Object.keys(server.meta).length > 0 && (
        <details>
          <summary>Meta</summary>
          <Json value={server.meta} />
        </details>
      )}
    </>
  );
}

/** The health counters. */
export function HealthFacts({ health }: { health: Health }) {
  const ago = (seconds: number | null) => (seconds === null ? "never" : `${duration(seconds)} ago`);
  return (
    <Facts
      items={[
        ["Success rate", `${Math.round(health.success_rate * 1000) / 10} %`],
        ["Invocations", health.total_invocations],
        ["Failures", health.total_failures],
        ["Failures in a row", health.consecutive_failures],
        ["Last success", ago(health.last_success_ago)],
        ["Last failure", ago(health.last_failure_ago)],
        ["May retry", health.can_retry ? "yes" : "no"],
      ]}
    />
  );
}
