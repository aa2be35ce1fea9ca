import {
  type DiscoveryMode,
  type DiscoverySourceKind,
  isDiscoveryMode,
  isDiscoverySourceKind,
} from "../../domain/discovery/discovery-mode.js";
import { entryTtlSeconds } from "../../domain/discovery/pending-ttl.js";
import { GatewayError, RequestRejected, validationError } from "../../domain/errors.js";
import type { DiscoveryRejectionRepository } from "../ports/discovery-rejection-repository.js";
import type { DiscoverySource } from "../ports/discovery-source.js";
import type { IdGenerator } from "../ports/id-generator.js";
import type {
  ConfiguredSource,
  DefinitionCheck,
  DiscoverySourceFactory,
  EndpointProbe,
} from "./discovery-deps.js";
import type { CycleReport, SourceRecord, SourceResult } from "./discovery-state.js";
import {
  type PendingView,
  pendingView,
  type QuarantineView,
  quarantineView,
  type SourceView,
  sourceView,
  type ToolPendingView,
  toolPendingView,
} from "./discovery-views.js";
import { approvalProblem, type CycleDeps, type DiscoveryHoldings, SourceCycle } from "./source-cycle.js";

/**
 * Waits this long after a source's change feed last fired, so a burst of changes (an editor's save,
 * a compose project starting) makes one scan. The one debounce: sources report every change.
 */
export const WATCH_DEBOUNCE_MS = 1_000;

export interface DiscoveryServiceDeps extends Omit<CycleDeps, "check" | "probe"> {
  ids: IdGenerator;
  check: DefinitionCheck;
  probe: EndpointProbe;
  /** The sources of `discovery.sources` (empty with discovery off). */
  sources: readonly ConfiguredSource[];
  /** Builds an adapter again when a configured source's `config` is changed through REST. */
  sourceFactory?: DiscoverySourceFactory;
  /** Operators' rejections, kept in the store: read before the first cycle of each term. */
  rejections: DiscoveryRejectionRepository;
}

export interface SourceRegistration {
  source_type: unknown;
  mode: unknown;
  enabled: boolean;
  config: Record<string, unknown>;
}

export interface SourcePatch {
  mode?: unknown;
  enabled?: boolean;
  config?: Record<string, unknown>;
}

/**
 * Discovery: the sources, what their cycles found, and the operator's approval workflow.
 *
 * Guaranteed: cycles never overlap (a cycle asked for while one runs waits for it); a server is
 * registered by at most one source; the cycle only ever removes servers it registered
 * (`source: 'discovery'`); approve acts on quarantined names only.
 * Rejections are written to the store before they are answered and read again before the first
 * cycle after a start or a takeover, so a rejected definition stays ignored.
 * Not guaranteed: the rest across restarts or replicas. Pending entries and quarantine live in the
 * memory of the fleet manager (only it runs discovery operations and cycles); after a restart or a
 * takeover the next cycle finds the servers again, and holds them again for approval.
 */
export class DiscoveryService {
  private readonly held: DiscoveryHoldings = {
    sources: new Map(),
    pending: new Map(),
    quarantined: new Map(),
    rejected: new Map(),
  };
  private readonly cycle: SourceCycle;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly debounce = new Map<string, NodeJS.Timeout>();
  private watching = false;
  /** Whether this term read the stored rejections yet (before its first cycle). */
  private rejectionsRead = false;

  constructor(private readonly deps: DiscoveryServiceDeps) {
    this.cycle = new SourceCycle(deps, this.held);
    for (const configured of deps.sources) {
      // Spec 1: a configured source's id derives from its type (one source per type), stable
      // across restarts.
      this.held.sources.set(configured.type, {
        id: configured.type,
        type: configured.type,
        mode: configured.mode,
        enabled: configured.enabled,
        config: configured.config,
        configured: true,
        source: configured.source,
        lastDiscovery: null,
        errorMessage: null,
        isHealthy: true,
        registered: new Map(),
        rateHistory: [],
      });
    }
  }

  /** `discovery.enabled`: cycles run and `gateway_discover` answers a report. */
  get enabled(): boolean {
    return this.deps.settings.enabled;
  }

  get refreshIntervalMs(): number {
    return this.deps.settings.refreshIntervalS * 1000;
  }

  /** Runs one cycle over every enabled configured source (or only `sourceId`), after any running one. */
  runCycle(sourceId?: string): Promise<CycleReport> {
    return this.serial(() => this.cycleNow(sourceId));
  }

  /**
   * Runs `task` after every cycle and operator action queued before it: a cycle awaits scans and
   * probes, and an approval, rejection or source change made meanwhile would otherwise see (or
   * leave) a half-applied cycle.
   */
  private serial<T>(task: () => T | Promise<T>): Promise<T> {
    const run = this.queue.then(task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async cycleNow(sourceId: string | undefined): Promise<CycleReport> {
    // A cycle that could not read the rejections does not run: it could hold or register a
    // definition an operator rejected.
    if (!this.rejectionsRead) await this.readRejections();
    const started = this.deps.clock.monotonic();
    const results: Record<string, SourceResult> = {};
    for (const record of this.held.sources.values()) {
      if (!record.configured || !record.enabled || !record.source) continue;
      if (sourceId !== undefined && record.id !== sourceId) continue;
      results[record.id] = await this.cycle.run(record);
    }
    const all = Object.values(results);
    const sum = (pick: (r: SourceResult) => number) => all.reduce((n, r) => n + pick(r), 0);
    return {
      discovered_count: sum((r) => r.mcp_servers_found),
      registered_count: sum((r) => r.registered),
      updated_count: sum((r) => r.updated),
      deregistered_count: sum((r) => r.deregistered),
      quarantined_count: sum((r) => r.quarantined),
      error_count: sum((r) => r.errors.length),
      duration_ms: Math.round(this.deps.clock.monotonic() - started),
      source_results: results,
    };
  }

  private async readRejections(): Promise<void> {
    for (const rejection of await this.deps.rejections.list())
      this.held.rejected.set(rejection.mcp_server_id, rejection.fingerprint);
    this.rejectionsRead = true;
  }

  /** Follows the change feeds of the sources that have one; each change brings an early scan. */
  watch(): void {
    if (this.watching) return;
    this.watching = true;
    for (const record of this.held.sources.values()) this.watchSource(record);
  }

  /**
   * Stops the change feeds and waits for a running cycle. `forget` (leadership lost) also clears
   * what it holds: the servers it registered stay registered (they are in the shared store, and
   * every replica has them), and the next fleet manager takes them over with its first cycle.
   */
  async unwatch(forget: boolean): Promise<void> {
    this.watching = false;
    for (const record of this.held.sources.values()) {
      record.stopWatch?.();
      delete record.stopWatch;
    }
    for (const timer of this.debounce.values()) clearTimeout(timer);
    this.debounce.clear();
    await this.queue;
    if (!forget) return;
    for (const record of this.held.sources.values()) {
      record.registered.clear();
      record.lastDiscovery = null;
    }
    this.held.pending.clear();
    this.held.quarantined.clear();
    // The next term reads them from the store, where every term's rejections are.
    this.held.rejected.clear();
    this.rejectionsRead = false;
  }

  private watchSource(record: SourceRecord): void {
    if (!this.watching || !record.configured || !record.source?.watch || record.stopWatch) return;
    const id = record.id;
    record.stopWatch = record.source.watch(() => {
      // A change reported after watching stopped (leadership lost) starts no cycle.
      if (!this.watching) return;
      clearTimeout(this.debounce.get(id));
      const timer = setTimeout(() => {
        this.debounce.delete(id);
        this.runCycle(id).catch((error) =>
          this.deps.logger.warn({ source_id: id, err: String(error) }, "discovery cycle failed"),
        );
      }, WATCH_DEBOUNCE_MS);
      timer.unref();
      this.debounce.set(id, timer);
    });
  }

  /** Configured sources only: those registered through REST are not listed (spec 1). */
  sources(): SourceView[] {
    return [...this.held.sources.values()].filter((s) => s.configured).map((s) => sourceView(s));
  }

  pending(): PendingView[] {
    const ttl = entryTtlSeconds(this.deps.settings.refreshIntervalS);
    return [...this.held.pending.values()].map((e) => pendingView(e, this.deps.clock.now(), ttl));
  }

  pendingForTool(): ToolPendingView[] {
    return [...this.held.pending.values()].map((e) => toolPendingView(e));
  }

  quarantined(): Record<string, QuarantineView> {
    return Object.fromEntries([...this.held.quarantined].map(([name, e]) => [name, quarantineView(e)]));
  }

  /** Servers registered by the discovery now, and entries held, for `gateway_metrics`. */
  counts(): { sources: number; registered: number; pending: number; quarantined: number } {
    const configured = [...this.held.sources.values()].filter((s) => s.configured);
    return {
      sources: configured.length,
      registered: configured.reduce((n, s) => n + s.registered.size, 0),
      pending: this.held.pending.size,
      quarantined: this.held.quarantined.size,
    };
  }

  approve(
    name: string,
    by: string,
  ): Promise<
    | { approved: true; mcp_server: string; status: "registered" }
    | { approved: false; mcp_server: string; error: string }
  > {
    return this.serial(() => this.approveNow(name, by));
  }

  private async approveNow(
    name: string,
    by: string,
  ): Promise<
    | { approved: true; mcp_server: string; status: "registered" }
    | { approved: false; mcp_server: string; error: string }
  > {
    const entry = this.held.quarantined.get(name);
    if (!entry) {
      const error = this.held.pending.has(name)
        ? `'${name}' is pending, not quarantined: only quarantined servers can be approved`
        : `'${name}' is not in quarantine`;
      return { approved: false, mcp_server: name, error };
    }
    try {
      await this.cycle.registerApproved(entry);
    } catch (error) {
      return { approved: false, mcp_server: name, error: approvalProblem(error) };
    }
    this.held.quarantined.delete(name);
    this.held.rejected.delete(name);
    await this.deps.rejections.remove(name).catch((error: unknown) =>
      // Harmless if kept: a rejection applies to its own fingerprint, and approving again works.
      this.deps.logger.warn(
        { mcp_server: name, err: String(error) },
        "a stale discovery rejection stays stored",
      ),
    );
    this.deps.bus.publish([
      { type: "DiscoveredServerApproved", mcp_server_id: name, source_id: entry.sourceId, approved_by: by },
    ]);
    return { approved: true, mcp_server: name, status: "registered" };
  }

  reject(
    name: string,
    by: string,
  ): Promise<
    { rejected: true; mcp_server: string } | { rejected: false; mcp_server: string; error: string }
  > {
    return this.serial(() => this.rejectNow(name, by));
  }

  private async rejectNow(
    name: string,
    by: string,
  ): Promise<
    { rejected: true; mcp_server: string } | { rejected: false; mcp_server: string; error: string }
  > {
    const entry = this.held.quarantined.get(name);
    if (!entry) return { rejected: false, mcp_server: name, error: `'${name}' is not in quarantine` };
    // Stored before it takes effect: a failed write rejects nothing (the caller sees an error).
    await this.deps.rejections.put({
      mcp_server_id: name,
      fingerprint: entry.fingerprint,
      rejected_by: by,
      rejected_at: this.deps.clock.now() / 1000,
    });
    this.held.quarantined.delete(name);
    this.held.rejected.set(name, entry.fingerprint);
    this.deps.bus.publish([
      { type: "DiscoveredServerRejected", mcp_server_id: name, source_id: entry.sourceId, rejected_by: by },
    ]);
    return { rejected: true, mcp_server: name };
  }

  /** `POST /discovery/sources`: kept for the per-source routes, never run, never listed. */
  registerSource(input: SourceRegistration): { source_id: string; registered: true } {
    const mode = discoveryMode(input.mode);
    const type = sourceKind(input.source_type);
    const id = `${type}-${this.deps.ids.hex(4)}`;
    this.held.sources.set(id, {
      id,
      type,
      mode,
      enabled: input.enabled,
      config: input.config,
      configured: false,
      lastDiscovery: null,
      errorMessage: null,
      isHealthy: true,
      registered: new Map(),
      rateHistory: [],
    });
    return { source_id: id, registered: true };
  }

  updateSource(id: string, patch: SourcePatch): Promise<{ source_id: string; updated: true }> {
    return this.serial(() => this.updateSourceNow(id, patch));
  }

  private updateSourceNow(id: string, patch: SourcePatch): { source_id: string; updated: true } {
    const record = this.require(id);
    const mode = patch.mode === undefined ? undefined : discoveryMode(patch.mode);
    if (patch.config !== undefined && record.configured) {
      const factory = this.deps.sourceFactory;
      if (!factory)
        throw validationError("config of a configured source cannot be changed here", { field: "config" });
      const source = this.build(factory, record, patch.config);
      record.stopWatch?.();
      delete record.stopWatch;
      record.source = source;
      this.watchSource(record);
    }
    if (patch.config !== undefined) record.config = patch.config;
    if (mode !== undefined) record.mode = mode;
    if (patch.enabled !== undefined) record.enabled = patch.enabled;
    return { source_id: id, updated: true };
  }

  /**
   * Forgets a source. Servers it registered stay registered (a source removed is not a server
   * gone); what it held in pending or quarantine is dropped.
   */
  deleteSource(id: string): Promise<{ source_id: string; deregistered: true }> {
    return this.serial(() => this.deleteSourceNow(id));
  }

  private deleteSourceNow(id: string): { source_id: string; deregistered: true } {
    const record = this.require(id);
    record.stopWatch?.();
    this.held.sources.delete(id);
    for (const map of [this.held.pending, this.held.quarantined] as Map<string, { sourceId: string }>[]) {
      for (const [name, entry] of map) if (entry.sourceId === id) map.delete(name);
    }
    return { source_id: id, deregistered: true };
  }

  /** Scans one source now: only an enabled configured source is scanned. */
  async scanSource(
    id: string,
  ): Promise<{ source_id: string; scan_triggered: boolean; mcp_servers_found: number }> {
    const record = this.require(id);
    if (!record.configured || !record.enabled || !record.source) {
      return { source_id: id, scan_triggered: false, mcp_servers_found: 0 };
    }
    const report = await this.runCycle(id);
    return {
      source_id: id,
      scan_triggered: true,
      mcp_servers_found: report.source_results[id]?.mcp_servers_found ?? 0,
    };
  }

  setEnabled(id: string, enabled: boolean): Promise<{ source_id: string; enabled: boolean }> {
    return this.serial(() => {
      this.require(id).enabled = enabled;
      return { source_id: id, enabled };
    });
  }

  /** A factory failure other than a named ValidationError is logged, and answered without its detail. */
  private build(
    factory: DiscoverySourceFactory,
    record: SourceRecord,
    config: Record<string, unknown>,
  ): DiscoverySource {
    try {
      return factory(record.type, config);
    } catch (error) {
      if (error instanceof GatewayError) throw error;
      this.deps.logger.warn(
        { source_id: record.id, err: String(error) },
        "discovery source could not be built",
      );
      throw validationError(`config: a ${record.type} source cannot be built from it`, { field: "config" });
    }
  }

  private require(id: string): SourceRecord {
    const record = this.held.sources.get(id);
    if (!record)
      throw new RequestRejected(404, "source_not_found", `discovery source '${id}' does not exist`, {
        source_id: id,
      });
    return record;
  }
}

function sourceKind(value: unknown): DiscoverySourceKind {
  if (isDiscoverySourceKind(value)) return value;
  throw validationError("source_type must be one of docker, kubernetes, filesystem, entrypoint", {
    field: "source_type",
  });
}

/** Spec 1 "Discovery": a mode other than additive or authoritative answers 400 `invalid_mode`. */
export function discoveryMode(value: unknown): DiscoveryMode {
  if (isDiscoveryMode(value)) return value;
  throw new RequestRejected(400, "invalid_mode", "mode must be additive or authoritative", { mode: value });
}
