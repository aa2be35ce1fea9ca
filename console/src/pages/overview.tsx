import { useState } from "preact/hooks";
import { useApiGet } from "../components/data.js";
import { useEvery } from "../components/refresh.js";
import { ErrorNote, Section } from "../components/ui.js";
import { useCan } from "../session.js";
import { AlertList, type Alerts } from "./overview/alerts.js";
import { HistoryCharts } from "./overview/charts.js";
import { CurrentTotals, type MetricsSnapshot } from "./overview/now.js";
import type { MetricHistory } from "./overview/series.js";

/** How often the overview asks again. */
export const OVERVIEW_REFRESH_MS = 15_000;

/** The last hour in charts, this replica's totals now and the alerts in force; refreshed every 15 s. */
export function OverviewPage() {
  const can = useCan();
  const history = useApiGet<MetricHistory>("/observability/metrics/history?minutes=60");
  const snapshot = useApiGet<MetricsSnapshot>(
    can("GET /observability/metrics") ? "/observability/metrics" : null,
  );
  const alerts = useApiGet<Alerts>(can("GET /observability/alerts") ? "/observability/alerts" : null);
  const [updated, setUpdated] = useState(() => new Date());
  const refresh = () => {
    history.reload();
    snapshot.reload();
    alerts.reload();
    setUpdated(new Date());
  };
  useEvery(OVERVIEW_REFRESH_MS, refresh);
  return (
    <div>
      <p class="page-status muted">
        Refreshed every {OVERVIEW_REFRESH_MS / 1000} s; last at {updated.toLocaleTimeString()}.{" "}
        <button type="button" onClick={refresh}>
          Refresh now
        </button>
      </p>
      {can("GET /observability/alerts") && (
        <Section title="Alerts in force">
          <ErrorNote message={alerts.error} />
          {alerts.data && <AlertList answer={alerts.data} />}
        </Section>
      )}
      <Section title="The last hour">
        <ErrorNote message={history.error} />
        {history.data && <HistoryCharts history={history.data} />}
      </Section>
      {can("GET /observability/metrics") && (
        <Section title="Tool calls now">
          <ErrorNote message={snapshot.error} />
          {snapshot.data && <CurrentTotals snapshot={snapshot.data} />}
        </Section>
      )}
    </div>
  );
}
