import { formatNumber } from "../../components/chart.js";
import { when } from "../../components/data.js";
import { Paged } from "../../components/ui.js";

/** The counts of `GET /observability/metrics` for a server, a group or the totals. */
export interface Calls {
  calls: number;
  success: number;
  failure: number;
  denied: number;
  errors: number;
  latency_ms: { p50: number; p95: number; p99: number } | null;
  in_flight: number;
}

export interface MetricsSnapshot {
  replica: { instance_id: string; manages_fleet: boolean };
  taken_at: number;
  counted_since: number;
  totals: Calls;
  mcp_servers: Record<string, Calls & { state: string | null }>;
  groups: Record<string, Calls & { state: string | null }>;
}

const ms = (value: number | undefined) => (value === undefined ? "—" : `${formatNumber(value)} ms`);

/** This replica's totals since it started, as tiles, then each server and group. */
export function CurrentTotals({ snapshot }: { snapshot: MetricsSnapshot }) {
  const { totals } = snapshot;
  const tiles: [string, string][] = [
    ["Calls", String(totals.calls)],
    ["Succeeded", String(totals.success)],
    ["Failed", String(totals.failure)],
    ["Denied", String(totals.denied)],
    ["In flight", String(totals.in_flight)],
    ["Latency p50", ms(totals.latency_ms?.p50)],
    ["Latency p95", ms(totals.latency_ms?.p95)],
    ["Latency p99", ms(totals.latency_ms?.p99)],
  ];
  const rows = [
    ...Object.entries(snapshot.mcp_servers).map(([id, calls]) => ({ id, kind: "server", ...calls })),
    ...Object.entries(snapshot.groups).map(([id, calls]) => ({ id, kind: "group", ...calls })),
  ];
  return (
    <div>
      <p class="muted">
        Counted by replica {snapshot.replica.instance_id} since {when(snapshot.counted_since)}.
      </p>
      <dl class="tiles">
        {tiles.map(([label, value]) => (
          <div class="tile" key={label}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      {rows.length > 0 && (
        <Paged
          items={rows}
          pageSize={10}
          render={(page) => (
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Server or group</th>
                    <th scope="col">Calls</th>
                    <th scope="col">Errors</th>
                    <th scope="col">In flight</th>
                    <th scope="col">p95</th>
                  </tr>
                </thead>
                <tbody>
                  {page.map((row) => (
                    <tr key={`${row.kind}-${row.id}`}>
                      <td>
                        {row.id}
                        {row.kind === "group" && <span class="muted"> (group)</span>}
                        {row.state === null && <span class="muted"> (no longer registered)</span>}
                      </td>
                      <td>{row.calls}</td>
                      <td>{row.errors}</td>
                      <td>{row.in_flight}</td>
                      <td>{ms(row.latency_ms?.p95)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        />
      )}
    </div>
  );
}
