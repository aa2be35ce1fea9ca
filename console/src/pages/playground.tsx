import { useState } from "preact/hooks";
import { api, seg } from "../api.js";
import { useApiGet } from "../components/data.js";
import { ActionButton, Busy, ErrorNote, Section } from "../components/ui.js";
import { href, navigate, type Route } from "../router.js";
import { useCan, useSession } from "../session.js";
import type { ServerSummary } from "./fleet.js";
import { CallForm, type ToolInfo } from "./playground/call-form.js";
import type { Credential } from "./playground/mcp-call.js";

interface GroupSummary {
  group_id: string;
  state: string;
}

/**
 * Calls one tool of a server or group: a form made from the tool's input schema, the call sent to
 * the gateway's MCP endpoint, its result shown as the tool returned it. `#/playground/<server>/<tool>`.
 */
export function PlaygroundPage({ route }: { route: Route }) {
  const can = useCan();
  const session = useSession();
  const [serverId = "", toolName = ""] = route.parts.slice(1);
  const servers = useApiGet<{ mcp_servers: ServerSummary[] }>("/mcp_servers/");
  const groups = useApiGet<{ groups: GroupSummary[] }>(can("GET /groups/") ? "/groups/" : null);
  const tools = useApiGet<{ tools: ToolInfo[] }>(serverId ? `/mcp_servers/${seg(serverId)}/tools` : null);
  const [credential, setCredential] = useState<Credential>({ secret: "", keyHeader: "X-API-Key" });
  const isGroup = groups.data?.groups.some((group) => group.group_id === serverId) ?? false;
  const server = servers.data?.mcp_servers.find((entry) => entry.mcp_server_id === serverId);
  const toolList = serverId && !tools.loading ? (tools.data?.tools ?? []) : [];
  const tool = toolList.find((entry) => entry.name === toolName);
  return (
    <div>
      <Section title="Tool playground">
        <p class="muted">
          Call a tool with arguments of your choosing, as an MCP client would: through the gateway's policies,
          approvals and audit trail, as the principal whose credential is given below.
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
        {session.auth_enabled && <CredentialFields value={credential} onChange={setCredential} />}
      </Section>
      {tool && (
        <CallForm
          key={`${serverId}/${tool.name}`}
          server={serverId}
          isGroup={isGroup}
          tool={tool}
          credential={session.auth_enabled ? credential : null}
        />
      )}
    </div>
  );
}

/**
 * The credential for the MCP endpoint, which the console's session does not authenticate. Kept in
 * the page's memory only: never stored, gone when the page is left or reloaded.
 */
function CredentialFields(props: { value: Credential; onChange: (value: Credential) => void }) {
  return (
    <div class="form-row">
      <div class="grow">
        <label for="pg-key">API key for calls</label>
        <input
          id="pg-key"
          type="password"
          autoComplete="off"
          aria-describedby="pg-key-hint"
          value={props.value.secret}
          onInput={(event) =>
            props.onChange({ ...props.value, secret: (event.target as HTMLInputElement).value })
          }
        />
        <p class="hint" id="pg-key-hint">
          Tool calls go to the MCP endpoint, which takes an API key (or a JWT), not the console's session. The
          key stays in this page's memory and is sent with each call only.
        </p>
      </div>
      <div>
        <label for="pg-key-header">Key header</label>
        <input
          id="pg-key-header"
          type="text"
          value={props.value.keyHeader}
          onInput={(event) =>
            props.onChange({ ...props.value, keyHeader: (event.target as HTMLInputElement).value })
          }
        />
      </div>
    </div>
  );
}
