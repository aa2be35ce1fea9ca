import { useCallback, useRef } from "preact/hooks";
import { api, seg } from "../api.js";
import { useApiGet } from "../components/data.js";
import { ActionButton, ErrorNote, LiveBadge, Paged, Section, StateBadge } from "../components/ui.js";
import { useEventStream } from "../live.js";
import { href, type Route } from "../router.js";
import { useCan } from "../session.js";
import { ServerPage } from "./server/page.js";

export interface ServerSummary {
  mcp_server_id: string;
  state: string;
  mode: string;
  alive: boolean;
  tools_count: number;
  health_status: string;
  description?: string;
  dead: { reason: string; since: string } | null;
}

interface GroupSummary {
  group_id: string;
  state: string;
  strategy?: string;
  total_members?: number;
  healthy_count?: number;
  [field: string]: unknown;
}

/** How long the list waits after a state change before reloading, so a burst reloads once. */
const RELOAD_DEBOUNCE_MS = 150;

/** `#/fleet`: the fleet; `#/fleet/<id>`: that server's page. */
export function FleetPage({ route }: { route: Route }) {
  const id = route.parts[1];
  return id ? <ServerPage key={id} id={id} /> : <FleetList />;
}

/** Every server and group, their state live from `/api/ws/state`; start, stop, block, delete. */
function FleetList() {
  const can = useCan();
  const servers = useApiGet<{ mcp_servers: ServerSummary[] }>("/mcp_servers/");
  const groups = useApiGet<{ groups: GroupSummary[] }>(can("GET /groups/") ? "/groups/" : null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const onEvent = useCallback(() => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      servers.reload();
      groups.reload();
    }, RELOAD_DEBOUNCE_MS);
  }, [servers.reload, groups.reload]);
  const stream = useEventStream("/ws/state", {}, onEvent);
  const reload = () => {
    servers.reload();
    groups.reload();
  };
  return (
    <div>
      <Section title="Servers" actions={<LiveBadge status={stream.status} reason={stream.reason} />}>
        <ErrorNote message={servers.error} />
        {servers.data && (
          <Paged
            items={servers.data.mcp_servers}
            render={(page) => (
              <div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Server</th>
                      <th scope="col">State</th>
                      <th scope="col">Health</th>
                      <th scope="col">Mode</th>
                      <th scope="col">Tools</th>
                      <th scope="col">Actions</th>
                    </tr>
                  </thead>
                  <tbody>
                    {page.map((server) => (
                      <tr key={server.mcp_server_id} data-server={server.mcp_server_id}>
                        <td>
                          <a href={href("fleet", server.mcp_server_id)}>{server.mcp_server_id}</a>
                          {server.dead && <div class="muted">dead: {server.dead.reason}</div>}
                        </td>
                        <td>
                          <StateBadge state={server.state} />
                        </td>
                        <td>{server.health_status}</td>
                        <td>{server.mode}</td>
                        <td>{server.tools_count}</td>
                        <td class="actions">
                          <ServerActions server={server} onDone={reload} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          />
        )}
      </Section>
      {groups.data && (
        <Section title="Groups">
          <ErrorNote message={groups.error} />
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Group</th>
                  <th scope="col">State</th>
                  <th scope="col">Members</th>
                </tr>
              </thead>
              <tbody>
                {groups.data.groups.map((group) => (
                  <tr key={group.group_id}>
                    <td>
                      <a href={href("groups", group.group_id)}>{group.group_id}</a>
                    </td>
                    <td>
                      <StateBadge state={group.state} />
                    </td>
                    <td>
                      {group.healthy_count ?? "?"} healthy of {group.total_members ?? "?"}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </Section>
      )}
    </div>
  );
}

/** The lifecycle buttons of one server, each shown only to a caller who may use it. */
export function ServerActions({ server, onDone }: { server: ServerSummary; onDone: () => void }) {
  const can = useCan();
  const id = seg(server.mcp_server_id);
  const running = server.state === "ready" || server.state === "degraded";
  return (
    <>
      {can("POST /mcp_servers/:id/start") && !running && (
        <ActionButton
          label="Start"
          busyLabel="Starting…"
          action={() => api("POST", `/mcp_servers/${id}/start`)}
          onDone={onDone}
        />
      )}
      {can("POST /mcp_servers/:id/stop") && running && (
        <ActionButton
          label="Stop"
          busyLabel="Stopping…"
          action={() => api("POST", `/mcp_servers/${id}/stop`, { reason: "user_request" })}
          onDone={onDone}
        />
      )}
      {can("POST /mcp_servers/:id/block") && (
        <ActionButton
          label="Block"
          danger
          confirm={`Block ${server.mcp_server_id}? It stops and cannot start again.`}
          action={() => api("POST", `/mcp_servers/${id}/block`)}
          onDone={onDone}
        />
      )}
      {can("DELETE /mcp_servers/:id") && (
        <ActionButton
          label="Delete"
          danger
          confirm={`Delete ${server.mcp_server_id}?`}
          action={() => api("DELETE", `/mcp_servers/${id}`)}
          onDone={onDone}
        />
      )}
    </>
  );
}
