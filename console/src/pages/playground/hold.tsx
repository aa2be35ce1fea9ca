import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { api } from "../../api.js";
import { when } from "../../components/data.js";
import { Busy } from "../../components/ui.js";
import { type EventFrame, useEventStream } from "../../live.js";
import { href } from "../../router.js";
import { useCan, useSession } from "../../session.js";

/** Where a held call stands (docs/approvals.md). */
export interface Hold {
  approval_id: string;
  state: "pending" | "approved" | "denied" | "expired" | "cancelled";
  expires_at?: number;
  decided_by?: string | null;
}

const HOLD_STATES: Record<string, Hold["state"]> = {
  ToolApprovalRequested: "pending",
  ToolApprovalGranted: "approved",
  ToolApprovalDenied: "denied",
  ToolApprovalExpired: "expired",
  ToolApprovalCancelled: "cancelled",
};

/** How often a running call looks for its approval in `GET /approvals` (besides the events). */
const POLL_MS = 2_000;

interface Approval {
  approval_id: string;
  mcp_server_id: string;
  tool_name: string;
  requested_by: string | null;
  requested_at: number;
  expires_at: number;
}

/**
 * Whether the running call of `tool` on `server` is held for approval: from the `ToolApproval*`
 * events of `/api/ws/events` (`onEvent`, for a caller who may read the stream) and from the pending
 * approvals (`GET /approvals`, for a caller who may read them), whichever tells first.
 */
export function useHold(server: string, isGroup: boolean, tool: string, startedAt: number | null) {
  const can = useCan();
  const session = useSession();
  const [hold, setHold] = useState<Hold | null>(null);
  const started = useRef(startedAt);
  started.current = startedAt;
  const ours = useCallback(
    (entry: { tool_name?: unknown; mcp_server_id?: unknown; requested_by?: unknown }) =>
      entry.tool_name === tool &&
      (entry.requested_by === undefined || entry.requested_by === session.principal.id) &&
      (isGroup || entry.mcp_server_id === server),
    [server, isGroup, tool, session.principal.id],
  );
  const onEvent = useCallback(
    (event: EventFrame) => {
      const state = HOLD_STATES[event.event_type];
      if (started.current === null || !state || !ours(event as Partial<Approval>)) return;
      setHold((current) => ({
        approval_id: String(event.approval_id ?? current?.approval_id ?? ""),
        state,
        expires_at: typeof event.expires_at === "number" ? event.expires_at : current?.expires_at,
        decided_by: (event.decided_by as string | null | undefined) ?? current?.decided_by,
      }));
    },
    [ours],
  );
  const polls = can("GET /approvals");
  useEffect(() => {
    setHold(null);
    if (startedAt === null || !polls) return;
    let stopped = false;
    const look = async () => {
      const pending = await api<Approval[]>("GET", "/approvals").catch(() => []);
      const found = pending.find((entry) => ours(entry) && entry.requested_at * 1000 >= startedAt - 1_000);
      if (!stopped && found) {
        setHold(
          (current) =>
            current ?? { approval_id: found.approval_id, state: "pending", expires_at: found.expires_at },
        );
      }
    };
    const timer = setInterval(look, POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [startedAt, polls, ours]);
  return { hold, onEvent };
}

/** Follows the approval events, so that a call held for a human decision says so. */
export function ApprovalWatch({ onEvent }: { onEvent: (event: EventFrame) => void }) {
  useEventStream("/ws/events", { event_types: ["ToolApproval*"] }, onEvent);
  return null;
}

/** A running call: the time it has taken, and whether it waits for a decision. */
export function Progress(props: { elapsed: number; hold: Hold | null; tool: string; server: string }) {
  const can = useCan();
  const { hold } = props;
  if (hold?.state === "pending") {
    return (
      <div class="hold">
        <Busy label={`Held for approval: waiting for a decision (${props.elapsed} s)`} />
        <p class="muted">
          Approval {hold.approval_id}
          {hold.expires_at ? `, expires ${when(hold.expires_at)}` : ""}. The call runs once it is approved.{" "}
          {can("GET /approvals") && <a href={href("approvals")}>Approvals</a>}
        </p>
      </div>
    );
  }
  const decided = hold ? ` (${hold.state}${hold.decided_by ? ` by ${hold.decided_by}` : ""})` : "";
  return <Busy label={`Calling ${props.tool} on ${props.server}${decided}… ${props.elapsed} s`} />;
}
