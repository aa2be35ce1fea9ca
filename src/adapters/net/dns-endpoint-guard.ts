import { lookup } from "node:dns/promises";
import type { EndpointGuard } from "../../app/ports/endpoint-guard.js";
import { RequestRejected } from "../../domain/errors.js";
import {
  type Cidr,
  classifyAddress,
  describeRefusal,
  type IpAddress,
  parseCidrList,
  parseIp,
} from "../../domain/policy/ssrf.js";

export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** Every address a hostname resolves to, as the system resolver orders them. */
export type Resolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/** `getaddrinfo` through libuv (hosts file, search domains, nsswitch), all addresses. */
export const systemResolver: Resolver = async (hostname) => {
  const addresses = await lookup(hostname, { all: true, verbatim: true });
  return addresses.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));
};

/**
 * Longest wait for a name to resolve. `getaddrinfo` retries each nameserver on its own schedule
 * (5 s per try by default); past 10 s the endpoint is refused rather than held open.
 */
export const DEFAULT_RESOLVE_TIMEOUT_MS = 10_000;

export interface DnsEndpointGuardOptions {
  /** `ssrf.trusted_networks`, already validated by the configuration schema. */
  trustedNetworks?: readonly string[];
  /** Defaults to {@link systemResolver}; tests pass their own answers. */
  resolve?: Resolver;
  resolveTimeoutMs?: number;
}

/** The parts of a URL the policy looks at, once its syntax passed. */
export interface CheckedUrl {
  readonly hostname: string;
  /** Set when the host is an address literal (already judged: nothing to resolve). */
  readonly literal?: IpAddress;
}

function blocked(detail: string): RequestRejected {
  return new RequestRejected(400, "ssrf_blocked", detail);
}

/**
 * The SSRF policy with the system resolver (spec 1 §4 rule 2). Judges address literals in every
 * encoding (the WHATWG URL parser already turns `0x7f.1` into `127.0.0.1`; {@link parseIp} reads
 * the rest) and every address a name resolves to; one refused address refuses the endpoint, since
 * a client may connect to any of them.
 *
 * Guaranteed: refusals are `RequestRejected(400, 'ssrf_blocked', detail)` whose detail names the
 * host and the kind of address, never the path, query or credentials of the URL.
 */
export class DnsEndpointGuard implements EndpointGuard {
  private trusted: readonly Cidr[];
  private readonly resolver: Resolver;
  private readonly resolveTimeoutMs: number;

  constructor(options: DnsEndpointGuardOptions = {}) {
    this.trusted = parseCidrList(options.trustedNetworks ?? []);
    this.resolver = options.resolve ?? systemResolver;
    this.resolveTimeoutMs = options.resolveTimeoutMs ?? DEFAULT_RESOLVE_TIMEOUT_MS;
  }

  /** Replaces `ssrf.trusted_networks` (configuration reload); applies to every later check. */
  setTrustedNetworks(networks: readonly string[]): void {
    this.trusted = parseCidrList(networks);
  }

  async assertAllowed(url: string): Promise<void> {
    const checked = this.checkUrl(url);
    if (checked.literal === undefined) await this.resolveAllowed(checked.hostname);
  }

  /**
   * The checks that need no resolution: an absolute http(s) URL without credentials whose host,
   * if an address literal, is allowed. Throws `RequestRejected` otherwise.
   */
  checkUrl(url: string | URL): CheckedUrl {
    let parsed: URL;
    try {
      parsed = typeof url === "string" ? new URL(url) : url;
    } catch {
      throw blocked("endpoint is not a valid absolute URL");
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
      throw blocked(`endpoint scheme must be http or https, not ${parsed.protocol.slice(0, -1)}`);
    }
    if (parsed.username !== "" || parsed.password !== "") {
      throw blocked("endpoint must not carry credentials in the URL; use the auth block");
    }
    const hostname = parsed.hostname;
    if (hostname === "") throw blocked("endpoint has no host");
    const literal = parseIp(hostname);
    if (literal === undefined) return { hostname };
    const verdict = classifyAddress(literal, this.trusted);
    if (!verdict.allowed) throw blocked(`endpoint host ${hostname} is ${describeRefusal(verdict)}`);
    return { hostname, literal };
  }

  /**
   * Resolves `hostname` now and returns its addresses when every one of them is allowed; rejects
   * with `RequestRejected` when one is refused, or when the name does not resolve (in time).
   * Called for each new connection, so an answer that changed since registration (DNS rebinding)
   * is caught where it matters.
   */
  async resolveAllowed(hostname: string): Promise<ResolvedAddress[]> {
    const literal = parseIp(hostname);
    if (literal !== undefined) {
      const verdict = classifyAddress(literal, this.trusted);
      if (!verdict.allowed) throw blocked(`endpoint host ${hostname} is ${describeRefusal(verdict)}`);
      return [{ address: hostname.replace(/^\[|\]$/g, ""), family: literal.version }];
    }
    const addresses = await this.resolveWithin(hostname);
    if (addresses.length === 0) throw blocked(`endpoint host ${hostname} does not resolve`);
    for (const entry of addresses) {
      const ip = parseIp(entry.address);
      if (ip === undefined)
        throw blocked(`endpoint host ${hostname} resolves to something that is not an address`);
      const verdict = classifyAddress(ip, this.trusted);
      if (!verdict.allowed)
        throw blocked(`endpoint host ${hostname} resolves to ${describeRefusal(verdict)}`);
    }
    return [...addresses];
  }

  private async resolveWithin(hostname: string): Promise<readonly ResolvedAddress[]> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(blocked(`endpoint host ${hostname} did not resolve within ${this.resolveTimeoutMs} ms`)),
        this.resolveTimeoutMs,
      );
    });
    try {
      return await Promise.race([this.resolver(hostname), deadline]);
    } catch (error) {
      if (error instanceof RequestRejected) throw error;
      const code = (error as NodeJS.ErrnoException | undefined)?.code;
      if (code === "ENOTFOUND" || code === "ENODATA")
        throw blocked(`endpoint host ${hostname} does not resolve`);
      throw blocked(`endpoint host ${hostname} could not be resolved (${code ?? "resolver error"})`);
    } finally {
      clearTimeout(timer);
    }
  }
}
