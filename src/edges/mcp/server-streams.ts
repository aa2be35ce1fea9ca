import type { ServerResponse } from "node:http";
import { CREDENTIAL_RECHECK_MS } from "../http/credential-recheck.js";
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
  recheckMs: CREDENTIAL_RECHECK_MS,
} as const;

export type ServerStreamLimits = { readonly [K in keyof typeof STREAM_LIMITS]: number };

/** Whether the caller of an open stream may still hold it (credential valid, something visible). */
export type StreamRecheck = () => Promise<boolean>;

interface OpenStream {
  readonly principal: string;
  readonly tenant: string | null;
  /** Null while the place is reserved and the stream not open yet. */
  res: ServerResponse | null;
  recheck: StreamRecheck | null;
  ends: NodeJS.Timeout | null;
}

/**
 * The open GET streams of the front door's sessions on this replica: admits a new one within the
 * caps, ends each after the longest age, and judges each again periodically, ending the streams
 * whose caller lost its credential (revoked, expired) or every role that let it see anything.
 */
export class ServerStreams {
  private readonly open = new Set<OpenStream>();
  private readonly checker: NodeJS.Timeout;

  constructor(private readonly limits: ServerStreamLimits = STREAM_LIMITS) {
    this.checker = setInterval(() => void this.recheckAll(), limits.recheckMs);
    this.checker.unref();
  }

  /**
   * Holds a place for a stream of `caller` before it opens (so that concurrent requests cannot pass
   * the caps together): a refusal to answer with 429, or a place that `settle` fills with the
   * response once the stream opened (null when it did not, which frees the place).
   */
  reserve(
    caller: Caller,
  ): { refusal: string } | { settle: (res: ServerResponse | null, recheck: StreamRecheck | null) => void } {
    const { id, tenant_id } = caller.principal;
    let byPrincipal = 0;
    let byTenant = 0;
    for (const stream of this.open) {
      if (stream.principal === id) byPrincipal++;
      if (tenant_id !== null && stream.tenant === tenant_id) byTenant++;
    }
    if (byPrincipal >= this.limits.perPrincipal)
      return {
        refusal: `Too many open streams: at most ${this.limits.perPrincipal} per principal on this replica`,
      };
    if (byTenant >= this.limits.perTenant)
      return {
        refusal: `Too many open streams: at most ${this.limits.perTenant} per tenant on this replica`,
      };
    const stream: OpenStream = { principal: id, tenant: tenant_id, res: null, recheck: null, ends: null };
    this.open.add(stream);
    return {
      settle: (res, recheck) => {
        if (!res || res.writableEnded || res.destroyed) {
          this.open.delete(stream);
          return;
        }
        stream.res = res;
        stream.recheck = recheck;
        stream.ends = setTimeout(() => res.end(), this.limits.maxAgeMs);
        stream.ends.unref();
        res.once("close", () => {
          if (stream.ends) clearTimeout(stream.ends);
          this.open.delete(stream);
        });
      },
    };
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
        if (!allowed) stream.res?.end();
      }),
    );
  }
}
