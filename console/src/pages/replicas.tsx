import { useApiGet, when } from "../components/data.js";
import { useEvery } from "../components/refresh.js";
import { ErrorNote, Paged, Section } from "../components/ui.js";
import { useCan } from "../session.js";
import type { Alerts } from "./overview/alerts.js";
import { lastSampleByReplica, type MetricHistory } from "./overview/series.js";

interface SystemInfo {
  system: {
    total_mcp_servers: number;
    total_tools: number;
    total_invocations: number;
    total_failures: number;
    overall_success_rate: number;
    uptime_seconds: number;
    version: string;
    instance: {
      instance_id: string;
      coordinates_with_peers: boolean;
      manages_fleet: boolean;
      storage_is_shareable: boolean;
      rate_limits_are_per_instance: boolean;
    };
  };
}

const REFRESH_MS = 15_000;
const yesNo = (value: boolean) => (value ? "yes" : "no");

/** `3 d 4 h`, `2 h 5 min`, `42 s`. */
function duration(seconds: number): string {
  const s = Math.floor(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86_400)} d ${Math.floor((s % 86_400) / 3600)} h`;
}

/**
 * The replica that answers (`GET /system/`), who holds the management lease as far as the API
 * tells, and the replicas that recorded metric samples in the last hour.
 */
export function ReplicasPage() {
  const can = useCan();
  const system = useApiGet<SystemInfo>("/system/");
  const history = useApiGet<MetricHistory>(
    can("GET /observability/metrics/history") ? "/observability/metrics/history?minutes=60" : null,
  );
  const alerts = useApiGet<Alerts>(can("GET /observability/alerts") ? "/observability/alerts" : null);
  useEvery(REFRESH_MS, () => {
    system.reload();
    history.reload();
    alerts.reload();
  });
  const info = system.data?.system;
  const self = info?.instance;
  const leaseAlerts = (alerts.data?.alerts ?? []).filter((alert) => alert.subject_type === "lease");
  const seen = history.data ? lastSampleByReplica(history.data) : [];
  return (
    <div>
      <Section key="self" title="This replica">
        <ErrorNote message={system.error} />
        {info && self && (
          <dl class="summary-facts">
            <dt>Instance id</dt>
            <dd data-fact="instance_id">
              <code>{self.instance_id}</code>
            </dd>
            <dt>Version</dt>
            <dd>{info.version}</dd>
            <dt>Up for</dt>
            <dd>{duration(info.uptime_seconds)}</dd>
            <dt>Coordinates with peers</dt>
            <dd>{yesNo(self.coordinates_with_peers)}</dd>
            <dt>Manages the fleet (holds the lease)</dt>
            <dd>{yesNo(self.manages_fleet)}</dd>
            <dt>Storage is shareable</dt>
            <dd>{yesNo(self.storage_is_shareable)}</dd>
            <dt>Rate limits are per replica</dt>
            <dd>{yesNo(self.rate_limits_are_per_instance)}</dd>
            <dt>Servers, tools</dt>
            <dd>
              {info.total_mcp_servers} servers, {info.total_tools} tools
            </dd>
            <dt>Tool calls here</dt>
            <dd>
              {info.total_invocations} ({info.total_failures} failed, success rate{" "}
              {Math.round(info.overall_success_rate * 1000) / 10} %)
            </dd>
          </dl>
        )}
      </Section>
      {self && (
        <Section key="lease" title="Management lease">
          <p>
            {!self.coordinates_with_peers
              ? "This replica has no coordination block: it is alone, manages its own fleet, and no lease is read or written."
              : self.manages_fleet
                ? `This replica (${self.instance_id}) holds the management lease: it runs the idle reaper, crash recovery and discovery.`
                : "Another replica holds the management lease, or none does. The API does not name the holder: ask each replica's /api/system directly (not through the load balancer); the one that answers manages_fleet: yes holds it."}
          </p>
          {leaseAlerts.map((alert) => (
            <p class="error" role="alert" key={alert.type}>
              {alert.message}
            </p>
          ))}
        </Section>
      )}
      {can("GET /observability/metrics/history") && (
        <Section key="seen" title="Replicas seen in the last hour">
          <ErrorNote message={history.error} />
          <p class="muted">
            Replicas that recorded metric samples in the shared store in the last hour. The API tells their
            ids and when they last sampled, not their coordinates: only the replica that answers describes
            itself.
          </p>
          {history.data &&
            (seen.length === 0 ? (
              <p>
                No replica recorded a sample in the last hour: a replica writes samples only while tool calls
                run through it.
              </p>
            ) : (
              <Paged
                items={seen}
                render={(page) => (
                  <div class="table-wrap">
                    <table>
                      <thead>
                        <tr>
                          <th scope="col">Replica</th>
                          <th scope="col">Holds the lease</th>
                          <th scope="col">Last sample</th>
                        </tr>
                      </thead>
                      <tbody>
                        {page.map(({ replica, last }) => (
                          <tr key={replica} data-replica={replica}>
                            <td>
                              <code>{replica}</code>
                              {replica === self?.instance_id && <span class="muted"> (this replica)</span>}
                            </td>
                            <td>{replica === self?.instance_id ? yesNo(self.manages_fleet) : "not told"}</td>
                            <td>{last === null ? "—" : when(last)}</td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </div>
                )}
              />
            ))}
        </Section>
      )}
    </div>
  );
}
