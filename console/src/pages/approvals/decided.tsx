import { useState } from "preact/hooks";
import { when } from "../../components/data.js";
import { Paged, StateBadge } from "../../components/ui.js";
import { type Approval, DECIDED_STATES } from "./queue.js";

/** Approvals out of `pending`, newest decision first, with who decided, when and why. */
export function DecidedList({ approvals }: { approvals: Approval[] }) {
  const [state, setState] = useState("");
  const shown = state === "" ? approvals : approvals.filter((approval) => approval.state === state);
  return (
    <div>
      <label for="decided-state">Decision</label>
      <select
        id="decided-state"
        value={state}
        onChange={(event) => setState((event.target as HTMLSelectElement).value)}
      >
        <option value="">all</option>
        {DECIDED_STATES.map((name) => (
          <option key={name} value={name}>
            {name}
          </option>
        ))}
      </select>
      {shown.length === 0 ? (
        <p class="muted">No decided approvals{state && ` in state ${state}`}.</p>
      ) : (
        <Paged
          items={shown}
          pageSize={20}
          render={(page) => (
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Decided</th>
                    <th scope="col">Decision</th>
                    <th scope="col">Call</th>
                    <th scope="col">Caller</th>
                    <th scope="col">Decided by</th>
                    <th scope="col">Reason</th>
                  </tr>
                </thead>
                <tbody>
                  {page.map((approval) => (
                    <tr key={approval.approval_id} data-approval={approval.approval_id}>
                      <td>{when(approval.decided_at)}</td>
                      <td>
                        <StateBadge state={approval.state} />
                      </td>
                      <td>
                        {approval.tool_name} <span class="muted">on</span> {approval.mcp_server_id}
                        {approval.tenant_id && <div class="muted">tenant {approval.tenant_id}</div>}
                      </td>
                      <td>{approval.requested_by ?? "—"}</td>
                      <td class="decided-by">{decider(approval)}</td>
                      <td>{approval.reason ?? "—"}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        />
      )}
    </div>
  );
}

/** Who moved it out of `pending`: a principal, or the gateway itself (expiry, undeliverable). */
function decider(approval: Approval): string {
  if (approval.decided_by === null) return "the gateway";
  // A cancelled approval names the approver whose approve came after the held call's deadline.
  return approval.state === "cancelled" ? `${approval.decided_by} (too late)` : approval.decided_by;
}
