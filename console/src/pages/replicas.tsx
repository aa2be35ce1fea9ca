import { useApiGet, when } from "../components/data.js";
import { useEvery } from "../components/refresh.js";
import { ErrorNote, Paged, Section } from "../components/ui.js";
import { useCan } from "../session.js";
import type { Alerts } from "./overview/alerts.js";

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

/** `GET /system/replicas` (docs/replicas.md "Who is there"). */
interface Replicas {
  this_replica: string;
  coordinates_with_peers: boolean;
  lease: {
    name: string;
    holder: string;
    generation: number;
    expires_at: number;
    expires_in_seconds: number;
    expired: boolean;
  } | null;
  replicas: {
    instance_id: string;
    host: string;
    address: string | null;
    version: string;
    started_at: number;
    last_seen_at: number;
    is_self: boolean;
    holds_lease: boolean;
  }[];
}

const REPLICAS_ROUTE = "GET /system/replicas";
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
 * The replica that answers (`GET /system/`), the management lease's holder and every live replica
 * with its coordinates (`GET /system/replicas`), read again every 15 s.
 */
export function ReplicasPage() {
  const can = useCan();
  const system = useApiGet<SystemInfo>("/system/");
  const roster = useApiGet<Replicas>(can(REPLICAS_ROUTE) ? "/system/replicas" : null);
  const alerts = useApiGet<Alerts>(can("GET /observability/alerts") ? "/observability/alerts" : null);
  useEvery(REFRESH_MS, () => {
    system.reload();
    roster.reload();
    alerts.reload();
  });
  const info = system.data?.system;
  const self = info?.instance;
  const lease = roster.data?.lease ?? null;
  const leaseAlerts = (alerts.data?.alerts ?? []).filter((alert) => alert.subject_type === "lease");
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
          <ErrorNote message={roster.error} />
          {!self.coordinates_with_peers ? (
            <p>
              This replica has no coordination block: it is alone, manages its own fleet, and no lease is read
              or written.
            </p>
          ) : lease ? (
            <dl class="summary-facts" data-lease={lease.holder}>
              <dt>Holder</dt>
              <dd data-fact="holder">
                <code>{lease.holder}</code>
                {lease.holder === self.instance_id && <span class="muted"> (this replica)</span>}
                {lease.expired && <span class="error"> (expired: no replica holds it now)</span>}
              </dd>
              <dt>Term (fencing generation)</dt>
              <dd>{lease.generation}</dd>
              <dt>Expires</dt>
              <dd>
                {when(lease.expires_at)} (in {Math.round(lease.expires_in_seconds)} s; renewed by its holder)
              </dd>
            </dl>
          ) : (
            <p>
              {can(REPLICAS_ROUTE)
                ? "No replica has held the lease yet."
                : self.manages_fleet
                  ? "This replica holds the lease."
                  : "Another replica holds the lease, or none does."}
            </p>
          )}
          {leaseAlerts.map((alert) => (
            <p class="error" role="alert" key={alert.type}>
              {alert.message}
            </p>
          ))}
        </Section>
      )}
      {roster.data && (
        <Section key="replicas" title="Replicas">
          <p class="muted">
            Every replica whose heartbeat reached the shared store within the lease's time to live, as it
            describes itself. A replica that stops leaves the list at once; one that dies leaves it once its
            heartbeat is that old.
          </p>
          <Paged
            items={roster.data.replicas}
            render={(page) => (
              <div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Replica</th>
                      <th scope="col">Host</th>
                      <th scope="col">Address</th>
                      <th scope="col">Version</th>
                      <th scope="col">Started</th>
                      <th scope="col">Last seen</th>
                      <th scope="col">Holds the lease</th>
                    </tr>
                  </thead>
                  <tbody>
                    {page.map((replica) => (
                      <tr key={replica.instance_id} data-replica={replica.instance_id}>
                        <td>
                          <code>{replica.instance_id}</code>
                          {replica.is_self && <span class="muted"> (this replica)</span>}
                        </td>
                        <td>{replica.host}</td>
                        <td>
                          {replica.address ? <code>{replica.address}</code> : "not listening over HTTP"}
                        </td>
                        <td>{replica.version}</td>
                        <td>{when(replica.started_at)}</td>
                        <td>{when(replica.last_seen_at)}</td>
                        <td>{yesNo(replica.holds_lease)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          />
        </Section>
      )}
    </div>
  );
}
