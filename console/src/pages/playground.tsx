import { api, seg } from "../api.js";
import { useApiGet } from "../components/data.js";
import { ActionButton, Busy, ErrorNote, Section } from "../components/ui.js";
import { href, navigate, type Route } from "../router.js";
import { useCan } from "../session.js";
import type { ServerSummary } from "./fleet.js";
import { CallForm, type ToolInfo } from "./playground/call-form.js";
import { CALL_ROUTE } from "./playground/tool-call.js";

interface GroupSummary {
  group_id: string;
  state: string;
}

/**
 * Calls one tool of a server or group: a form made from the tool's input schema, the call sent as
 * the signed-in principal (`POST /api/tools/call`), its result shown as the tool returned it.
 * `#/playground/<server>/<tool>`.
 */
export function PlaygroundPage({ route }: { route: Route }) {
  const can = useCan();
  const [serverId = "", toolName = ""] = route.parts.slice(1);
  const servers = useApiGet<{ mcp_servers: ServerSummary[] }>("/mcp_servers/");
  const groups = useApiGet<{ groups: GroupSummary[] }>(can("GET /groups/") ? "/groups/" : null);
  const tools = useApiGet<{ tools: ToolInfo[] }>(serverId ? `/mcp_servers/${seg(serverId)}/tools` : null);
  const isGroup = groups.data?.groups.some((group) => group.group_id === serverId) ?? false;
  const server = servers.data?.mcp_servers.find((entry) => entry.mcp_server_id === serverId);
  const toolList = serverId && !tools.loading ? (tools.data?.tools ?? []) : [];
  const tool = toolList.find((entry) => entry.name === toolName);
  return (
    <div>
      <Section title="Tool playground">
        <p class="muted">
          Call a tool with arguments of your choosing, as an MCP client would: through the gateway's policies,
          approvals and audit trail, as you.
        </p>
        <ErrorNote message={servers.error} />
        <ErrorNote message={groups.error} />
        <div class="form-row">
          <div>
            <label for="pg-server">Server or group</label>
            <select
              id="pg-server"
              value={serverId}
              onChange={(event) => navigate("playground", (event.target as HTMLSelectElement).value)}
            >
              <option value="">(choose)</option>
              <optgroup label="Servers">
                {(servers.data?.mcp_servers ?? []).map((entry) => (
                  <option key={entry.mcp_server_id} value={entry.mcp_server_id}>
                    {entry.mcp_server_id} ({entry.state})
                  </option>
                ))}
              </optgroup>
              {(groups.data?.groups.length ?? 0) > 0 && (
                <optgroup label="Groups">
                  {groups.data?.groups.map((group) => (
                    <option key={group.group_id} value={group.group_id}>
                      {group.group_id} (group, {group.state})
                    </option>
                  ))}
                </optgroup>
              )}
            </select>
          </div>
          {serverId && toolList.length > 0 && (
            <div>
              <label for="pg-tool">Tool</label>
              <select
                id="pg-tool"
                value={tool ? toolName : ""}
                onChange={(event) =>
                  navigate("playground", serverId, (event.target as HTMLSelectElement).value)
                }
              >
                <option value="">(choose)</option>
                {toolList.map((entry) => (
                  <option key={entry.name} value={entry.name}>
                    {entry.name}
                  </option>
                ))}
              </select>
            </div>
          )}
        </div>
        {serverId && tools.loading && <Busy label="Loading the tools…" />}
        <ErrorNote message={tools.error} />
        {serverId && !tools.loading && !tools.error && toolList.length === 0 && (
          <p>
            No tool of {serverId} is known{server ? ` (${server.state})` : ""}: a server lists its tools once
            it has started.{" "}
            {server && !isGroup && can("POST /mcp_servers/:id/start") && (
              <ActionButton
                label={`Start ${serverId}`}
                busyLabel="Starting…"
                action={() => api("POST", `/mcp_servers/${seg(serverId)}/start`)}
                onDone={() => {
                  tools.reload();
                  servers.reload();
                }}
              />
            )}
          </p>
        )}
        {toolName && !tools.loading && toolList.length > 0 && !tool && (
          <p class="error" role="alert">
            {serverId} offers no tool {toolName} to you.{" "}
            <a href={href("playground", serverId)}>Choose another</a>.
          </p>
        )}
        {!can(CALL_ROUTE) && (
          <p class="muted" role="note">
            You may look at the tools, but not call them: calling needs the <code>tool:invoke</code>{" "}
            permission.
          </p>
        )}
      </Section>
      {tool && can(CALL_ROUTE) && (
        <CallForm key={`${serverId}/${tool.name}`} server={serverId} isGroup={isGroup} tool={tool} />
      )}
    </div>
  );
}
