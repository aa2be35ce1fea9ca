import { Json, Paged } from "../../components/ui.js";

/** A tool as `GET /mcp_servers/{id}/tools` lists it (spec 1 §2 "Tool"). */
export interface Tool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  digest: string;
  /** Present only when the tool has a pin for every caller. */
  pinned_digest?: string;
}

/** The tools a server offers: description, digest and pin, the input schema on demand. */
export function ToolList({ tools }: { tools: readonly Tool[] }) {
  if (tools.length === 0) return <p class="muted">No tools known: the server lists them once started.</p>;
  return (
    <Paged
      items={tools}
      pageSize={20}
      render={(page) => (
        <ul class="tool-list">
          {page.map((tool) => (
            <li key={tool.name} data-tool={tool.name}>
              <h3>{tool.name}</h3>
              {tool.description && <p>{tool.description}</p>}
              <p class="digest">
                <span class="muted">digest </span>
                <code>{tool.digest}</code>
              </p>
              {tool.pinned_digest !== undefined && <Pin tool={tool} pinned={tool.pinned_digest} />}
              <details>
                <summary>Input schema</summary>
                <Json value={tool.inputSchema} />
              </details>
            </li>
          ))}
        </ul>
      )}
    />
  );
}

function Pin({ tool, pinned }: { tool: Tool; pinned: string }) {
  if (pinned === tool.digest) {
    return (
      <p class="digest">
        <span class="badge state-ready">pinned</span> <span class="muted">the pin matches the digest</span>
      </p>
    );
  }
  return (
    <p class="digest">
      <span class="badge state-dead">pin differs</span> <span class="muted">pinned </span>
      <code>{pinned}</code>
    </p>
  );
}
