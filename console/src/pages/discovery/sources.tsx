import { api, seg } from "../../api.js";
import { type Loaded, when } from "../../components/data.js";
import { ActionButton, ErrorNote, Section, StateBadge } from "../../components/ui.js";
import { useCan } from "../../session.js";

/** A discovery source as `GET /discovery/sources` lists it. */
export interface Source {
  id: string;
  source_type: string;
  mode: string;
  is_healthy: boolean;
  is_enabled: boolean;
  last_discovery: string | null;
  mcp_servers_count: number;
  error_message: string | null;
}

/** The sources with their health and last scan; Scan now, Disable and Enable for a caller who may. */
export function SourcesSection(props: { sources: Loaded<{ sources: Source[] }>; onChange: () => void }) {
  const can = useCan();
  const { data, error } = props.sources;
  return (
    <Section
      title="Sources"
      actions={
        <button type="button" onClick={props.onChange}>
          Refresh
        </button>
      }
    >
      <ErrorNote message={error} />
      {data && data.sources.length === 0 && (
        <p class="muted">
          No discovery source runs: they are declared under discovery.sources in the configuration.
        </p>
      )}
      {data && data.sources.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Source</th>
                <th scope="col">Mode</th>
                <th scope="col">Health</th>
                <th scope="col">Last scan</th>
                <th scope="col">Servers</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {data.sources.map((source) => (
                <tr key={source.id} data-source={source.id}>
                  <td>
                    {source.id}
                    {source.id !== source.source_type && <div class="muted">{source.source_type}</div>}
                  </td>
                  <td>{source.mode}</td>
                  <td>
                    <StateBadge
                      state={!source.is_enabled ? "disabled" : source.is_healthy ? "healthy" : "failing"}
                    />
                    {source.error_message && <div class="error">{source.error_message}</div>}
                  </td>
                  <td>{when(source.last_discovery)}</td>
                  <td>{source.mcp_servers_count}</td>
                  <td class="actions">
                    {can("POST /discovery/sources/:id/scan") && (
                      <ActionButton
                        label="Scan now"
                        busyLabel="Scanning…"
                        action={() => api("POST", `/discovery/sources/${seg(source.id)}/scan`)}
                        onDone={props.onChange}
                      />
                    )}
                    {can("PUT /discovery/sources/:id/enable") && (
                      <ActionButton
                        label={source.is_enabled ? "Disable" : "Enable"}
                        action={() =>
                          api("PUT", `/discovery/sources/${seg(source.id)}/enable`, {
                            enabled: !source.is_enabled,
                          })
                        }
                        onDone={props.onChange}
                      />
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  );
}
