import type { ServerResponse } from "node:http";
import type { Caller } from "../http/plugins/authentication.js";

/**
 * Spec 2 §8, "list_changed streams": 32 per principal, 256 per tenant, per replica, excess answers
 * 429; each ends at key or role revocation, JWT expiry, or after one hour.
 */
export const STREAM_LIMITS = {
  perPrincipal: 32,
  perTenant: 256,
  maxAgeMs: 60 * 60 * 1000,
  /** How often an open stream's credential and roles are judged again. */
  recheckMs: 15 * 1000,
} as const;

export type StreamLimits = { readonly [K in keyof typeof STREAM_LIMITS]: number };

/** Whether the caller of an open stream may still hold it (credential valid, something visible). */
export type StreamRecheck = () => Promise<boolean>;

interface OpenStream {
  readonly principal: string;
  readonly tenant: string | null;
  readonly res: ServerResponse;
  readonly recheck: StreamRecheck | null;
  readonly ends: NodeJS.Timeout;
}

/**
 * The open GET streams of the front door's sessions on this replica: admits a new one within the
 * caps, ends each after the longest age, and judges each again periodically, ending the streams
 * whose caller lost its credential (revoked, expired) or every role that let it see anything.
 */
export class ServerStreams {
  private readonly open = new Set<OpenStream>();
  private readonly checker: NodeJS.Timeout;

  constructor(private readonly limits: StreamLimits = STREAM_LIMITS) {
    this.checker = setInterval(() => void this.recheckAll(), limits.recheckMs);
    this.checker.unref();
  }

  /** Why `caller` may not open another stream now (for a 429), or null when it may. */
  refusal(caller: Caller): string | null {
    const { id, tenant_id } = caller.principal;
    let byPrincipal = 0;
    let byTenant = 0;
    for (const stream of this.open) {
      if (stream.principal === id) byPrincipal++;
      if (tenant_id !== null && stream.tenant === tenant_id) byTenant++;
    }
    if (byPrincipal >= this.limits.perPrincipal)
      return `Too many open streams: at most ${this.limits.perPrincipal} per principal on this replica`;
    if (byTenant >= this.limits.perTenant)
      return `Too many open streams: at most ${this.limits.perTenant} per tenant on this replica`;
    return null;
  }

  /** Counts a stream that opened on `res` until it closes; `recheck` null: nothing to judge again. */
  track(caller: Caller, res: ServerResponse, recheck: StreamRecheck | null): void {
    if (res.writableEnded || res.destroyed) return;
    const stream: OpenStream = {
      principal: caller.principal.id,
      tenant: caller.principal.tenant_id,
      res,
      recheck,
      ends: setTimeout(() => res.end(), this.limits.maxAgeMs),
    };
    stream.ends.unref();
    this.open.add(stream);
    res.once("close", () => {
      clearTimeout(stream.ends);
      this.open.delete(stream);
    });
  }

  get size(): number {
    return this.open.size;
  }

  close(): void {
    clearInterval(this.checker);
  }

  private async recheckAll(): Promise<void> {
    await Promise.all(
      [...this.open].map(async (stream) => {
        if (!stream.recheck) return;
        const allowed = await stream.recheck().catch(() => false);
        if (!allowed) stream.res.end();
      }),
    );
  }
}
