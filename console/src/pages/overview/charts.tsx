import { LineChart } from "../../components/chart.js";
import { Paged } from "../../components/ui.js";
import { DEFAULT_INTERVAL_S, latencyByServer, type MetricHistory, perServer } from "./series.js";

/** The last hour of every replica's samples: calls per second, errors and latency, per server. */
export function HistoryCharts({ history }: { history: MetricHistory }) {
  const interval = history.interval_s ?? DEFAULT_INTERVAL_S;
  // A sample missing for longer than two intervals is a gap in the line, not a slope across it.
  const gapAfter = interval * 2.5;
  const calls = perServer(history, "tool_calls", "sum", interval);
  const errors = perServer(history, "tool_call_errors", "sum");
  const latency = latencyByServer(history);
  const span = { from: history.from, to: history.to };
  return (
    <div>
      <p class="muted">
        {history.interval_s === null
          ? "This replica's sampler is off (observability.metrics_history.enabled): only other replicas' samples show. "
          : `One sample every ${interval} s per replica, added up over ${history.replicas.length} replica(s). `}
        {history.truncated &&
          "The window holds more samples than one answer carries: the oldest are left out."}
      </p>
      <div class="grid charts">
        <LineChart title="Tool calls per second, by server" unit="calls/s" series={calls} {...span} />
        <LineChart title={`Errors per ${interval} s, by server`} unit="errors" series={errors} {...span} />
      </div>
      <h3>Latency by server</h3>
      {latency.length === 0 ? (
        <p>No call ran in this window.</p>
      ) : (
        <Paged
          items={latency}
          pageSize={4}
          render={(page) => (
            <div class="grid charts">
              {page.map(({ server, series }) => (
                <LineChart
                  key={server}
                  title={`Latency of ${server}`}
                  unit="ms"
                  series={series}
                  gapAfter={gapAfter}
                  {...span}
                />
              ))}
            </div>
          )}
        />
      )}
    </div>
  );
}
