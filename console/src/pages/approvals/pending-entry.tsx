import { useEffect, useState } from "preact/hooks";
import { ApiError, api, seg } from "../../api.js";
import { messageOf, when } from "../../components/data.js";
import { ActionButton, Json } from "../../components/ui.js";
import type { Approval } from "./queue.js";

/** What became of a decision the caller made here, in words, for the page to show. */
export interface Outcome {
  ok: boolean;
  text: string;
}

/** One held call: what it would run, for whom, how long it waits; approve and deny when allowed. */
export function PendingEntry(props: {
  approval: Approval;
  canResolve: boolean;
  onOutcome: (outcome: Outcome) => void;
}) {
  const { approval } = props;
  const [reason, setReason] = useState("");
  const name = `${approval.tool_name} on ${approval.mcp_server_id}`;
  const reasonId = `reason-${approval.approval_id}`;
  const decide = async (decision: "approve" | "deny") => {
    const text = reason.trim();
    if (decision === "deny" && text === "") throw new Error("Write a reason to deny: the caller is told it.");
    try {
      await api("POST", `/approvals/${seg(approval.approval_id)}/resolve`, {
        decision,
        ...(text !== "" && { reason: text }),
      });
      props.onOutcome({ ok: true, text: `${decision === "approve" ? "Approved" : "Denied"} ${name}.` });
    } catch (failure) {
      // Shown by the page, not the entry: a refused decision often removes the entry (expired, cancelled).
      const verb = decision === "approve" ? "approve" : "deny";
      props.onOutcome({ ok: false, text: `Could not ${verb} ${name}: ${refusal(failure)}` });
    }
  };
  return (
    <li class="approval" data-approval={approval.approval_id}>
      <h3>
        {approval.tool_name} <span class="muted">on</span> {approval.mcp_server_id}
      </h3>
      <dl class="approval-facts">
        <dt>Caller</dt>
        <dd>{approval.requested_by ?? "—"}</dd>
        <dt>Tenant</dt>
        <dd>{approval.tenant_id ?? "—"}</dd>
        <dt>Time left</dt>
        <dd>
          <TimeLeft expiresAt={approval.expires_at} />
        </dd>
        <dt>Requested</dt>
        <dd>{when(approval.requested_at)}</dd>
      </dl>
      <p class="muted small">Arguments, as the API shows them (secret values redacted):</p>
      <Json value={approval.arguments} />
      {props.canResolve && (
        <div class="decide">
          <label for={reasonId}>Reason (required to deny)</label>
          <input
            id={reasonId}
            type="text"
            maxLength={500}
            value={reason}
            onInput={(event) => setReason((event.target as HTMLInputElement).value)}
          />
          <div>
            <ActionButton label="Approve" busyLabel="Approving…" action={() => decide("approve")} />
            <ActionButton label="Deny" busyLabel="Denying…" danger action={() => decide("deny")} />
          </div>
        </div>
      )}
    </li>
  );
}

/** The API's refusal, with what a 409 means for the held call. */
function refusal(failure: unknown): string {
  const message = messageOf(failure);
  if (!(failure instanceof ApiError) || failure.status !== 409) return message;
  if (message === "Approval expired") {
    return `${message}: the held call stopped waiting (its own deadline or the hold's passed), so it will not run.`;
  }
  return `${message}: someone else decided it first.`;
}

/** The seconds left until `expiresAt` (epoch seconds), counting down. */
function TimeLeft({ expiresAt }: { expiresAt: number }) {
  const [now, setNow] = useState(() => Date.now() / 1000);
  useEffect(() => {
    const tick = setInterval(() => setNow(Date.now() / 1000), 1000);
    return () => clearInterval(tick);
  }, []);
  const left = Math.ceil(expiresAt - now);
  if (left <= 0) return <span class="urgent">expired, waiting for the gateway to record it</span>;
  const minutes = Math.floor(left / 60);
  const seconds = String(left % 60).padStart(2, "0");
  return (
    <span class={left <= 30 ? "urgent" : ""}>
      {minutes}:{seconds} left{" "}
      <span class="muted">(until {new Date(expiresAt * 1000).toLocaleTimeString()})</span>
    </span>
  );
}
