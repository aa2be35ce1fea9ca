import { when } from "../../components/data.js";
import { Paged } from "../../components/ui.js";

export interface Alert {
  level: "critical" | "warning" | "info";
  type: string;
  subject_type: string;
  subject_id: string | null;
  message: string;
  since: string | null;
}

export interface Alerts {
  alerts: Alert[];
  count: number;
  by_level: Record<string, number>;
  replica: { instance_id: string };
}

/** The alerts in force on the answering replica, most severe first (as the API orders them). */
export function AlertList({ answer }: { answer: Alerts }) {
  if (answer.alerts.length === 0) {
    return <p>No alert is in force on replica {answer.replica.instance_id}.</p>;
  }
  return (
    <div>
      <p class="muted">
        As replica {answer.replica.instance_id} sees them: {answer.by_level.critical ?? 0} critical,{" "}
        {answer.by_level.warning ?? 0} warning, {answer.by_level.info ?? 0} info.
      </p>
      <Paged
        items={answer.alerts}
        pageSize={10}
        render={(page) => (
          <ul class="alerts">
            {page.map((alert) => (
              <li key={`${alert.type}-${alert.subject_id}`} class={`alert alert-${alert.level}`}>
                <span class={`badge level-${alert.level}`}>{alert.level}</span> {alert.message}
                <div class="muted">
                  {alert.type} · {alert.subject_type}
                  {alert.subject_id && ` ${alert.subject_id}`}
                  {alert.since && ` · since ${when(alert.since)}`}
                </div>
              </li>
            ))}
          </ul>
        )}
      />
    </div>
  );
}
