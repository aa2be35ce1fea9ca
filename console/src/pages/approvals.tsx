import { useState } from "preact/hooks";
import { Busy, ErrorNote, LiveBadge, Paged, Section } from "../components/ui.js";
import { useCan } from "../session.js";
import { DecidedList } from "./approvals/decided.js";
import { type Outcome, PendingEntry } from "./approvals/pending-entry.js";
import { useApprovalQueue } from "./approvals/queue.js";

/**
 * Held tool calls waiting for a human (docs/approvals.md), live from `/api/ws/events`: approve or
 * deny each (`approval:resolve`), and the decided ones with who decided.
 */
export function ApprovalsPage() {
  const can = useCan();
  const canResolve = can("POST /approvals/:id/resolve");
  const queue = useApprovalQueue();
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const onOutcome = (next: Outcome) => {
    setOutcome(next);
    queue.reload();
  };
  const live = queue.stream.status === "live";
  return (
    <div>
      <Section title="Pending approvals" actions={<LiveBadge {...queue.stream} />}>
        {!live && queue.stream.status === "closed" && (
          <p class="muted">The event stream is not available: the list is read again every 10 seconds.</p>
        )}
        <ErrorNote message={queue.error} />
        {outcome &&
          (outcome.ok ? (
            <p class="done" role="status">
              {outcome.text}
            </p>
          ) : (
            <ErrorNote message={outcome.text} />
          ))}
        {queue.pending === null ? (
          !queue.error && <Busy label="Loading approvals…" />
        ) : queue.pending.length === 0 ? (
          <p class="muted">No call is waiting for a decision.</p>
        ) : (
          <Paged
            items={queue.pending}
            pageSize={10}
            render={(page) => (
              <ul class="approvals">
                {page.map((approval) => (
                  <PendingEntry
                    key={approval.approval_id}
                    approval={approval}
                    canResolve={canResolve}
                    onOutcome={onOutcome}
                  />
                ))}
              </ul>
            )}
          />
        )}
      </Section>
      <Section title="Decided">{queue.decided && <DecidedList approvals={queue.decided} />}</Section>
    </div>
  );
}
