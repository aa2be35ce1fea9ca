import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { messageOf } from "./data.js";

/** An error in the API's words, announced to screen readers. */
export function ErrorNote({ message }: { message: string | null }) {
  if (!message) return null;
  return (
    <p class="error" role="alert">
      {message}
    </p>
  );
}

/** Long work under way (starting a server, a reload): shown as a busy status. */
export function Busy({ label }: { label: string }) {
  return (
    <p class="busy" role="status" aria-live="polite">
      <span class="spinner" aria-hidden="true" />
      {label}
    </p>
  );
}

/** Whether a stream is live, in words and colour. */
export function LiveBadge({ status, reason }: { status: string; reason?: string | null }) {
  const text =
    status === "live"
      ? "live"
      : status === "connecting"
        ? "connecting…"
        : `offline${reason ? `: ${reason}` : ""}`;
  return <span class={`badge live-${status}`}>{text}</span>;
}

export function StateBadge({ state }: { state: string }) {
  return <span class={`badge state-${state}`}>{state}</span>;
}

/**
 * A button that runs an action, shows progress while it runs (`busyLabel`) and its error in words;
 * `confirm` asks first.
 */
export function ActionButton(props: {
  label: string;
  busyLabel?: string;
  action: () => Promise<unknown>;
  confirm?: string;
  danger?: boolean;
  onDone?: (result: unknown) => void;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async () => {
    if (props.confirm && !window.confirm(props.confirm)) return;
    setBusy(true);
    setError(null);
    try {
      const result = await props.action();
      props.onDone?.(result);
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <span class="action">
      <button
        type="button"
        class={props.danger ? "danger" : ""}
        disabled={busy}
        onClick={run}
        aria-busy={busy}
      >
        {busy ? (props.busyLabel ?? `${props.label}…`) : props.label}
      </button>
      {error && (
        <span class="error inline" role="alert">
          {error}
        </span>
      )}
    </span>
  );
}

/** One page of `items` at a time, with previous/next. */
export function Paged<T>(props: {
  items: readonly T[];
  pageSize?: number;
  render: (page: readonly T[]) => ComponentChildren;
}) {
  const size = props.pageSize ?? 25;
  const [page, setPage] = useState(0);
  const pages = Math.max(1, Math.ceil(props.items.length / size));
  const shown = Math.min(page, pages - 1);
  const slice = props.items.slice(shown * size, shown * size + size);
  return (
    <div>
      {props.render(slice)}
      {pages > 1 && (
        <nav class="pager" aria-label="pages">
          <button type="button" disabled={shown === 0} onClick={() => setPage(shown - 1)}>
            Previous
          </button>
          <span>
            Page {shown + 1} of {pages} ({props.items.length})
          </span>
          <button type="button" disabled={shown >= pages - 1} onClick={() => setPage(shown + 1)}>
            Next
          </button>
        </nav>
      )}
    </div>
  );
}

/** A titled block of a page. */
export function Section(props: { title: string; actions?: ComponentChildren; children: ComponentChildren }) {
  return (
    <section class="card">
      <header class="card-head">
        <h2>{props.title}</h2>
        {props.actions && <div class="card-actions">{props.actions}</div>}
      </header>
      {props.children}
    </section>
  );
}

/** JSON shown as text (arguments, schemas, results). */
export function Json({ value }: { value: unknown }) {
  return <pre class="json">{JSON.stringify(value, null, 2)}</pre>;
}
