import { useState } from "preact/hooks";
import { ApiError, api, seg } from "../../api.js";
import { messageOf, useApiGet } from "../../components/data.js";
import { ActionButton, ErrorNote } from "../../components/ui.js";
import { useCan } from "../../session.js";

/** A policy to start from: every tool allowed, in audit mode (records verdicts, refuses nothing). */
const TEMPLATE = {
  tools: { allow: ["*"], deny: [], requireApproval: [] },
  defaultAction: "Deny",
  mode: "Audit",
};

/** `/mcp_servers/{id}/l7_policy`: a server's L7 egress policy, read, set as JSON, or removed. */
export function L7Policies() {
  const can = useCan();
  const servers = useApiGet<{ mcp_servers: { mcp_server_id: string }[] }>(
    can("GET /mcp_servers/") ? "/mcp_servers/" : null,
  );
  const ids = servers.data?.mcp_servers.map((server) => server.mcp_server_id) ?? [];
  const [server, setServer] = useState("");
  const [shown, setShown] = useState<{ server: string; found: boolean } | null>(null);
  const [text, setText] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const chosen = server || ids[0] || "";
  const writable = can("PUT /mcp_servers/:id/l7_policy");
  const load = async (event: Event) => {
    event.preventDefault();
    setError(null);
    setNote(null);
    try {
      const policy = await api<unknown>("GET", `/mcp_servers/${seg(chosen)}/l7_policy`);
      setShown({ server: chosen, found: true });
      setText(JSON.stringify(policy, null, 2));
    } catch (failure) {
      if (failure instanceof ApiError && failure.code === "no_l7_policy") {
        setShown({ server: chosen, found: false });
        setText(JSON.stringify(TEMPLATE, null, 2));
      } else {
        setShown(null);
        setError(messageOf(failure));
      }
    }
  };
  const save = async () => {
    let policy: unknown;
    try {
      policy = JSON.parse(text);
    } catch (failure) {
      throw new Error(`The policy is not valid JSON: ${messageOf(failure)}`);
    }
    return api("PUT", `/mcp_servers/${seg(shown?.server ?? "")}/l7_policy`, policy);
  };
  return (
    <div>
      <ErrorNote message={servers.error} />
      <form class="inline-form" onSubmit={load}>
        <div>
          <label for="l7-server">Server</label>
          {servers.data ? (
            <select
              id="l7-server"
              value={chosen}
              onChange={(event) => setServer((event.target as HTMLSelectElement).value)}
            >
              {ids.map((id) => (
                <option key={id} value={id}>
                  {id}
                </option>
              ))}
            </select>
          ) : (
            <input
              id="l7-server"
              autoComplete="off"
              value={server}
              onInput={(event) => setServer((event.target as HTMLInputElement).value)}
            />
          )}
        </div>
        <button type="submit" disabled={chosen === ""}>
          Show policy
        </button>
      </form>
      <ErrorNote message={error} />
      {shown && (
        <div class="policy">
          <p>
            {shown.found
              ? `The policy of ${shown.server}, as every replica applies it (policyId is ignored when sent back).`
              : `${shown.server} has no L7 egress policy: its calls are not checked.${writable ? " Below is one to start from." : ""}`}
          </p>
          <label for="l7-json">Policy of {shown.server} (JSON)</label>
          <textarea
            id="l7-json"
            class="code"
            rows={14}
            spellcheck={false}
            readOnly={!writable}
            value={text}
            onInput={(event) => setText((event.target as HTMLTextAreaElement).value)}
          />
          {writable && (
            <ActionButton
              label={shown.found ? "Replace policy" : "Attach policy"}
              busyLabel="Saving…"
              action={save}
              onDone={(answer) => {
                const { policy } = answer as { policy: unknown };
                setText(JSON.stringify(policy, null, 2));
                setShown({ server: shown.server, found: true });
                setNote("Saved: it applies to the next call.");
              }}
            />
          )}
          {shown.found && can("DELETE /mcp_servers/:id/l7_policy") && (
            <ActionButton
              label="Remove policy"
              danger
              confirm={`Remove the L7 egress policy of ${shown.server}? Its calls are no longer checked.`}
              action={() => api("DELETE", `/mcp_servers/${seg(shown.server)}/l7_policy`)}
              onDone={() => {
                setShown({ server: shown.server, found: false });
                setText(JSON.stringify(TEMPLATE, null, 2));
                setNote("Removed.");
              }}
            />
          )}
          {note && <p role="status">{note}</p>}
        </div>
      )}
    </div>
  );
}
