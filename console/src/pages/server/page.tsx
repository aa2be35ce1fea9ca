import { seg } from "../../api.js";
import { useApiGet } from "../../components/data.js";
import { StateFollower } from "../../components/state-follower.js";
import { ErrorNote, Section, StateBadge } from "../../components/ui.js";
import { href } from "../../router.js";
import { useCan } from "../../session.js";
import { ServerActions } from "../fleet.js";
import { type Health, HealthFacts, type ServerDetail, ServerFacts } from "./facts.js";
import { HistorySection } from "./history.js";
import { LogsSection } from "./logs.js";
import { type Tool, ToolList } from "./tools.js";

/**
 * One server (`#/fleet/<id>`): its detail, lifecycle buttons, health, tools, log lines followed
 * live, and invocation history; its state kept current from `/api/ws/state`.
 */
export function ServerPage({ id }: { id: string }) {
  const can = useCan();
  const base = `/mcp_servers/${seg(id)}`;
  const detail = useApiGet<ServerDetail | { group_id: string }>(base);
  const health = useApiGet<Health>(can("GET /mcp_servers/:id/health") ? `${base}/health` : null);
  const tools = useApiGet<{ tools: Tool[] }>(can("GET /mcp_servers/:id/tools") ? `${base}/tools` : null);
  const reload = () => {
    detail.reload();
    health.reload();
    tools.reload();
  };
  const server = detail.data && "mcp_server_id" in detail.data ? detail.data : null;
  return (
    <div>
      <p>
        <a href={href("fleet")}>Back to the fleet</a>
      </p>
      <header class="page-head">
        <h1>{id}</h1>
        {server && <StateBadge state={server.state} />}
        <StateFollower filter={{ mcp_server_ids: [id] }} onChange={reload} />
      </header>
      <ErrorNote message={detail.error} />
      {detail.data && "group_id" in detail.data && (
        <p>
          {id} is a group: see <a href={href("groups", id)}>its page</a>.
        </p>
      )}
      {server && (
        <>
          <div class="grid">
            <Section
              title="Server"
              actions={
                <ServerActions
                  server={{ ...server, tools_count: server.tools.length, health_status: "" }}
                  onDone={reload}
                />
              }
            >
              <ServerFacts server={server} />
            </Section>
            <Section title="Health">
              <ErrorNote message={health.error} />
              {health.data && <HealthFacts health={health.data} />}
            </Section>
          </div>
          <Section title={`Tools${tools.data ? ` (${tools.data.tools.length})` : ""}`}>
            <ErrorNote message={tools.error} />
            {tools.data && <ToolList tools={tools.data.tools} />}
          </Section>
          <LogsSection id={id} />
          {can("GET /mcp_servers/:id/tools/history") && <HistorySection id={id} onRefresh={health.reload} />}
        </>
      )}
    </div>
  );
}
