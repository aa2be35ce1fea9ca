import { ConcurrencyBudget } from "../../domain/limits/concurrency-budget.js";
import { INITIAL_LIFECYCLE, type Lifecycle } from "../../domain/server/lifecycle.js";
import type { ServerSpec, ToolSchema } from "../../domain/server/server-spec.js";
import type { UpstreamConnection } from "../ports/upstream.js";
import { LogRing } from "./log-ring.js";

export interface ToolInfo extends ToolSchema {
  /** SHA-256 over RFC 8785 canonical JSON of the digest subject: 64 lowercase hex characters. */
  digest: string;
}

export interface InvocationStats {
  total_invocations: number;
  total_failures: number;
  /** Epoch milliseconds, or null. */
  last_success_at: number | null;
  last_failure_at: number | null;
}

/** Lines of stderr kept per server: enough for a crash trace, bounded for a fleet of thousands. */
export const LOG_RING_CAPACITY = 1000;

/**
 * The runtime record of one registered server. It holds state; behaviour lives in {@link Fleet},
 * and `lifecycle` changes only through the domain transition table.
 */
export class ManagedServer {
  lifecycle: Lifecycle = INITIAL_LIFECYCLE;
  private toolList: ToolInfo[] | null = null;
  private toolIndex = new Map<string, ToolInfo>();
  connection: UpstreamConnection | null = null;
  /** Single flight: concurrent starts share one attempt. */
  starting: Promise<readonly ToolInfo[]> | null = null;
  /** Aborts the start in progress; a stop uses it. */
  startAbort: AbortController | null = null;
  /** Counts starts and stops, so a start abandoned by a stop knows it. */
  generation = 0;
  readonly stats: InvocationStats = {
    total_invocations: 0,
    total_failures: 0,
    last_success_at: null,
    last_failure_at: null,
  };
  /** Calls in progress here: from the invoker taking them (a cold start included) to their end. */
  inFlight = 0;
  /**
   * Calls a group routed here that are still being admitted (policies, gates, an approval hold):
   * counted with {@link inFlight} by `least_connections`, so that calls routed at once spread.
   */
  admitting = 0;
  /** Epoch milliseconds of the last completed start; null before the first. */
  startedAt: number | null = null;
  /** Monotonic milliseconds of the last use (start or call), for the idle reaper. */
  lastUsedMono = 0;
  readonly logs: LogRing;

  /** Calls in progress against `max_concurrency` (or the execution default). */
  readonly budget: ConcurrencyBudget;

  constructor(
    /** Replaced only by {@link Fleet.amend}. */
    public spec: ServerSpec,
    nowMs: () => number,
    concurrencyLimit: number,
  ) {
    this.logs = new LogRing(LOG_RING_CAPACITY, nowMs);
    this.budget = new ConcurrencyBudget(concurrencyLimit);
  }

  get id(): string {
    return this.spec.id;
  }

  /** Known tools: predefined in configuration, or as last listed from the running server. */
  get tools(): readonly ToolInfo[] | null {
    return this.toolList;
  }

  setTools(tools: ToolInfo[]): void {
    this.toolList = tools;
    this.toolIndex = new Map(tools.map((tool) => [tool.name, tool]));
  }

  /** Whether a tool is known; true while the tools are not known yet (the server will tell). */
  mayHaveTool(name: string): boolean {
    return this.toolList === null || this.toolIndex.has(name);
  }

  get alive(): boolean {
    return this.connection !== null;
  }
}
