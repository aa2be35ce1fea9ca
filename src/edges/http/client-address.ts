import type { FastifyRequest } from "fastify";
import { type Cidr, cidrContains, type IpAddress, parseCidr, parseIp } from "../../domain/policy/ssrf.js";

/** Addresses whose verdict is remembered; past it the memory starts again. */
const MAX_REMEMBERED_ADDRESSES = 4_096;

/** Who may speak for the client through `X-Forwarded-For` (`MCP_TRUSTED_PROXIES`). */
export class TrustedProxies {
  private readonly networks: Cidr[];

  /** Addresses or CIDRs; a bare address is a single-host network. */
  constructor(entries: readonly string[]) {
    this.networks = entries
      .map((entry) => parseCidr(entry.includes("/") ? entry : `${entry}/${entry.includes(":") ? 128 : 32}`))
      .filter((cidr) => cidr !== undefined);
  }

  /** Verdicts by address text: a gateway hears from few peers, and parsing one costs more than the lookup. */
  private readonly verdicts = new Map<string, boolean>();

  trusts(address: string): boolean {
    let verdict = this.verdicts.get(address);
    if (verdict === undefined) {
      const ip = toIp(address);
      verdict = ip !== undefined && this.networks.some((network) => cidrContains(network, ip));
      if (this.verdicts.size >= MAX_REMEMBERED_ADDRESSES) this.verdicts.clear();
      this.verdicts.set(address, verdict);
    }
    return verdict;
  }

  /**
   * The direct peer when it is a trusted proxy, whether or not it named another address; undefined
   * otherwise. The login lockout counts failures against it as well as against the client address
   * it named, so a peer cannot evade the lockout by naming a new address on every attempt.
   */
  proxyOf(request: FastifyRequest): string | undefined {
    const peer = request.socket.remoteAddress;
    return peer !== undefined && this.trusts(peer) ? peer : undefined;
  }

  /**
   * fastify's `trustProxy` setting: the HTTP application built with it walks `X-Forwarded-For`
   * from the right, skipping the hops this trusts (see `clientAddress`).
   */
  readonly trustProxy = (address: string): boolean => this.trusts(address);

  /**
   * The client's address: the peer, unless the peer is a trusted proxy, in which case
   * `X-Forwarded-For` is read from the right, skipping trusted proxies, and the first address not
   * trusted is the client's. fastify does the walk (`request.ips`, from the peer outwards) when the
   * application was built with `trustProxy`; a malformed entry ends it at the last trusted hop.
   */
  clientAddress(request: FastifyRequest): string {
    const peer = request.socket.remoteAddress ?? "unknown";
    const hops = request.ips;
    if (hops === undefined || hops.length < 2) return peer;
    const last = hops[hops.length - 1] as string;
    return toIp(last) === undefined ? (hops[hops.length - 2] as string) : last;
  }
}

/** An address as a socket or a header gives it (IPv4-mapped IPv6 read as IPv4). */
function toIp(text: string): IpAddress | undefined {
  const plain = text.startsWith("::ffff:") && text.includes(".") ? text.slice("::ffff:".length) : text;
  return parseIp(plain);
}
