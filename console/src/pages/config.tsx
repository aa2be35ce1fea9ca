import { useState } from "preact/hooks";
import { api } from "../api.js";
import { useApiGet } from "../components/data.js";
import { ActionButton, ErrorNote, Section } from "../components/ui.js";
import { useCan } from "../session.js";
import { type ConfigDiff, DiffView } from "./config/diff.js";
import { ExportConfig } from "./config/export.js";
import { ReloadConfig } from "./config/reload.js";

/** The configuration file against what runs; reload, backup and export, each for callers who may. */
export function ConfigPage() {
  const can = useCan();
  const diff = useApiGet<ConfigDiff>("/config/diff");
  const [backup, setBackup] = useState<string | null>(null);
  return (
    <div>
      <Section
        title="File and running configuration"
        actions={
          <button type="button" onClick={diff.reload} disabled={diff.loading}>
            Compare again
          </button>
        }
      >
        <ErrorNote message={diff.error} />
        {diff.data && <DiffView diff={diff.data} />}
      </Section>
      {can("POST /config/reload") && (
        <Section title="Reload">
          <ReloadConfig onDone={diff.reload} />
        </Section>
      )}
      {can("POST /config/backup") && (
        <Section title="Backup">
          <p>
            Copies the configuration file beside itself as <code>.bak1</code>; older copies move to{" "}
            <code>.bak2</code> and on, ten are kept.
          </p>
          <ActionButton
            label="Back up the file"
            busyLabel="Backing up…"
            action={() => api("POST", "/config/backup", {})}
            onDone={(answer) => setBackup((answer as { path: string }).path)}
          />
          {backup && (
            <p role="status">
              Backed up to <code>{backup}</code>.
            </p>
          )}
        </Section>
      )}
      {can("POST /config/export") && (
        <Section title="Export">
          <ExportConfig />
        </Section>
      )}
    </div>
  );
}
