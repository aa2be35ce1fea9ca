/**
 * The SSRF address policy (spec 1 §4 rule 2): which IP addresses a REST-registered remote endpoint
 * may reach. Pure: parsing and classification only; resolving names is an adapter's job.
 *
 * Addresses are read as 32- or 128-bit integers, so every textual form of one address (decimal
 * `2130706433`, octal `0177.0.0.1`, hex `0x7f.1`, short `127.1`, IPv4-mapped `::ffff:7f00:1`, ...)
 * lands on the same number and the same verdict. IPv6 forms that carry an IPv4 address (mapped,
 * translated, compatible, NAT64, 6to4, Teredo) are judged by the IPv4 address they reach.
 */

export type IpAddress =
  | { readonly version: 4; readonly value: bigint }
  | { readonly version: 6; readonly value: bigint; readonly zone?: string };

/** A network: `network` has its host bits cleared. */
export interface Cidr {
  readonly version: 4 | 6;
  readonly network: bigint;
  readonly prefix: number;
}

export type RefusalReason =
  | "unspecified"
  | "loopback"
  | "private"
  | "link_local"
  | "cgnat"
  | "unique_local"
  | "benchmarking"
  | "multicast"
  | "broadcast"
  | "reserved"
  | "documentation";

/** How an IPv6 address carries the IPv4 address it was judged by. */
export type Ipv4Embedding =
  | "ipv4_mapped"
  | "ipv4_translated"
  | "ipv4_compatible"
  | "nat64"
  | "6to4"
  | "teredo";

export type AddressVerdict =
  | { readonly allowed: true }
  | {
      readonly allowed: false;
      readonly reason: RefusalReason;
      /** The refused range that matched, as CIDR text (`127.0.0.0/8`). */
      readonly range: string;
      /** Set when the refused address is an IPv4 address carried inside an IPv6 one. */
      readonly embeddedIn?: Ipv4Embedding;
    };

/** Longer input cannot be an address; bounds the work done on hostile text. */
const MAX_ADDRESS_TEXT = 256;

const IPV4_BITS = 32n;
const IPV6_BITS = 128n;
const IPV4_ALL = (1n << IPV4_BITS) - 1n;

function width(version: 4 | 6): bigint {
  return version === 4 ? IPV4_BITS : IPV6_BITS;
}

function prefixMask(version: 4 | 6, prefix: number): bigint {
  const bits = width(version);
  const all = (1n << bits) - 1n;
  return all ^ ((1n << (bits - BigInt(prefix))) - 1n);
}

// ---------------------------------------------------------------------------------------------
// Parsing

/**
 * One part of an IPv4 address as `inet_aton` and the WHATWG URL parser read it: `0x`/`0X` hex
 * (`0x` alone is 0), a leading `0` octal, decimal otherwise.
 */
function parseIpv4Part(part: string): bigint | undefined {
  if (part === "") return undefined;
  if (/^0[xX]/.test(part)) {
    const digits = part.slice(2);
    if (digits === "") return 0n;
    return /^[0-9a-fA-F]+$/.test(digits) ? BigInt(`0x${digits}`) : undefined;
  }
  if (part.length > 1 && part.startsWith("0")) {
    const digits = part.slice(1);
    return /^[0-7]+$/.test(digits) ? BigInt(`0o${digits}`) : undefined;
  }
  return /^[0-9]+$/.test(part) ? BigInt(part) : undefined;
}

/**
 * Reads IPv4 in every encoding a resolver accepts: one to four parts, each decimal, octal or hex;
 * the last part fills the remaining bytes (`127.1` is 127.0.0.1, `2130706433` is too). One
 * trailing dot is allowed, as in URLs.
 */
function parseIpv4(text: string): bigint | undefined {
  let parts = text.split(".");
  if (parts.length > 1 && parts[parts.length - 1] === "") parts = parts.slice(0, -1);
  if (parts.length === 0 || parts.length > 4) return undefined;
  const numbers: bigint[] = [];
  for (const part of parts) {
    const value = parseIpv4Part(part);
    if (value === undefined) return undefined;
    numbers.push(value);
  }
  const last = numbers.pop() as bigint;
  if (numbers.some((value) => value > 255n)) return undefined;
  if (last >= 1n << BigInt(8 * (5 - parts.length))) return undefined;
  return numbers.reduce((acc, value, index) => acc | (value << BigInt(8 * (3 - index))), last);
}

/** The strict dotted quad allowed at the end of an IPv6 address (no leading zeros, as in URLs). */
function parseDottedQuad(text: string): bigint | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  let value = 0n;
  for (const part of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part)) return undefined;
    const byte = BigInt(part);
    if (byte > 255n) return undefined;
    value = (value << 8n) | byte;
  }
  return value;
}

function parseGroups(text: string): bigint[] | undefined {
  if (text === "") return [];
  const groups: bigint[] = [];
  for (const group of text.split(":")) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return undefined;
    groups.push(BigInt(`0x${group}`));
  }
  return groups;
}

/** Reads IPv6 text (RFC 4291 §2.2: `::` once, optional trailing dotted IPv4); no zone, no brackets. */
function parseIpv6(text: string): bigint | undefined {
  if (!/^[0-9a-fA-F:.]+$/.test(text)) return undefined;
  let head = text;
  const tail: bigint[] = [];
  const lastColon = text.lastIndexOf(":");
  if (lastColon < 0) return undefined;
  const end = text.slice(lastColon + 1);
  if (end.includes(".")) {
    const v4 = parseDottedQuad(end);
    if (v4 === undefined) return undefined;
    tail.push(v4 >> 16n, v4 & 0xffffn);
    head = text.slice(0, lastColon + 1);
    if (!head.endsWith("::")) head = head.slice(0, -1);
  }
  const halves = head.split("::");
  let groups: bigint[];
  if (halves.length === 1) {
    const all = parseGroups(head);
    if (all === undefined) return undefined;
    groups = [...all, ...tail];
    if (groups.length !== 8) return undefined;
  } else if (halves.length === 2) {
    const left = parseGroups(halves[0] as string);
    const right = parseGroups(halves[1] as string);
    if (left === undefined || right === undefined) return undefined;
    const present = left.length + right.length + tail.length;
    // `::` stands for at least one group of zeros.
    if (present > 7) return undefined;
    groups = [...left, ...Array<bigint>(8 - present).fill(0n), ...right, ...tail];
  } else {
    return undefined;
  }
  return groups.reduce((acc, group) => (acc << 16n) | group, 0n);
}

/**
 * Reads an IP address literal in any encoding: IPv4 in dotted, decimal, octal, hex, short and
 * mixed forms; IPv6 with `::`, an embedded dotted IPv4, a zone id (`fe80::1%eth0`) and optional
 * brackets (`[::1]`, as in URLs). Returns undefined for anything else (a hostname).
 */
export function parseIp(text: string): IpAddress | undefined {
  if (text.length === 0 || text.length > MAX_ADDRESS_TEXT) return undefined;
  let body = text;
  const bracketed = body.startsWith("[") && body.endsWith("]");
  if (bracketed) body = body.slice(1, -1);
  if (body.includes(":")) {
    const percent = body.indexOf("%");
    const zone = percent >= 0 ? body.slice(percent + 1) : undefined;
    if (zone === "") return undefined;
    const value = parseIpv6(percent >= 0 ? body.slice(0, percent) : body);
    if (value === undefined) return undefined;
    return zone === undefined ? { version: 6, value } : { version: 6, value, zone };
  }
  if (bracketed) return undefined;
  const value = parseIpv4(body);
  return value === undefined ? undefined : { version: 4, value };
}

/** Canonical text: dotted quad, or RFC 5952 IPv6 (lowercase, longest zero run as `::`). */
export function formatIp(ip: IpAddress): string {
  if (ip.version === 4) {
    return [24n, 16n, 8n, 0n].map((shift) => ((ip.value >> shift) & 0xffn).toString()).join(".");
  }
  const groups: bigint[] = [];
  for (let shift = 112n; shift >= 0n; shift -= 16n) groups.push((ip.value >> shift) & 0xffffn);
  let bestStart = -1;
  let bestLength = 1;
  for (let start = 0; start < 8; start++) {
    let length = 0;
    while (start + length < 8 && groups[start + length] === 0n) length++;
    if (length > bestLength) {
      bestStart = start;
      bestLength = length;
    }
  }
  const hex = groups.map((group) => group.toString(16));
  const text =
    bestStart < 0
      ? hex.join(":")
      : `${hex.slice(0, bestStart).join(":")}::${hex.slice(bestStart + bestLength).join(":")}`;
  return ip.version === 6 && ip.zone !== undefined ? `${text}%${ip.zone}` : text;
}

/**
 * Reads an address written plainly, as configuration takes it: a dotted quad without leading
 * zeros, or IPv6 text without zone or brackets. Undefined for any other form.
 */
export function parsePlainIp(text: string): IpAddress | undefined {
  if (text.length === 0 || text.length > MAX_ADDRESS_TEXT) return undefined;
  if (text.includes(":")) {
    const value = parseIpv6(text);
    return value === undefined ? undefined : { version: 6, value };
  }
  const value = parseDottedQuad(text);
  return value === undefined ? undefined : { version: 4, value };
}

/** `address/prefix` exactly as written: `address` keeps any host bits, so they can be reported. */
export interface WrittenCidr {
  readonly address: IpAddress;
  readonly prefix: number;
}

/** Reads `address/prefix` with a plainly written address (`parsePlainIp`); host bits are kept. */
export function readCidr(text: string): WrittenCidr | undefined {
  const slash = text.indexOf("/");
  if (slash < 0) return undefined;
  const prefixText = text.slice(slash + 1);
  if (!/^[0-9]{1,3}$/.test(prefixText)) return undefined;
  const address = parsePlainIp(text.slice(0, slash));
  const prefix = Number(prefixText);
  if (address === undefined || BigInt(prefix) > width(address.version)) return undefined;
  return { address, prefix };
}

/**
 * Reads `address/prefix` (see `readCidr`); host bits are cleared (configuration validation refuses
 * them before this runs).
 */
export function parseCidr(text: string): Cidr | undefined {
  const written = readCidr(text);
  if (written === undefined) return undefined;
  const { address, prefix } = written;
  return { version: address.version, network: address.value & prefixMask(address.version, prefix), prefix };
}

/** Parses a list of CIDRs; throws an Error naming the first entry that is not one. */
export function parseCidrList(texts: readonly string[]): Cidr[] {
  return texts.map((text) => {
    const cidr = parseCidr(text.trim());
    if (cidr === undefined) throw new Error(`not a CIDR: ${text}`);
    return cidr;
  });
}

/** Whether `ip` lies in `cidr` (never across IP versions). */
export function cidrContains(cidr: Cidr, ip: IpAddress): boolean {
  return cidr.version === ip.version && (ip.value & prefixMask(cidr.version, cidr.prefix)) === cidr.network;
}

/** Whether the two networks share at least one address (never across IP versions). */
export function cidrsOverlap(a: Cidr, b: Cidr): boolean {
  if (a.version !== b.version) return false;
  const mask = prefixMask(a.version, Math.min(a.prefix, b.prefix));
  return (a.network & mask) === (b.network & mask);
}

// ---------------------------------------------------------------------------------------------
// Classification

interface Range {
  readonly text: string;
  readonly cidr: Cidr;
  readonly reason: RefusalReason;
}

function ranges(entries: ReadonlyArray<readonly [string, RefusalReason]>): Range[] {
  return entries.map(([text, reason]) => ({ text, reason, cidr: parseCidr(text) as Cidr }));
}

/** Refused IPv4 ranges (IANA special-purpose registry); the first match names the reason. */
const IPV4_REFUSED = ranges([
  ["0.0.0.0/8", "unspecified"],
  ["10.0.0.0/8", "private"],
  ["100.64.0.0/10", "cgnat"],
  ["127.0.0.0/8", "loopback"],
  ["169.254.0.0/16", "link_local"],
  ["172.16.0.0/12", "private"],
  // IETF protocol assignments (includes the NAT64 discovery and DS-Lite addresses).
  ["192.0.0.0/24", "reserved"],
  ["192.0.2.0/24", "documentation"],
  // The former 6to4 relay anycast prefix.
  ["192.88.99.0/24", "reserved"],
  ["192.168.0.0/16", "private"],
  ["198.18.0.0/15", "benchmarking"],
  ["198.51.100.0/24", "documentation"],
  ["203.0.113.0/24", "documentation"],
  ["224.0.0.0/4", "multicast"],
  // Before 240/4, which contains it, so that it gets its own reason.
  ["255.255.255.255/32", "broadcast"],
  ["240.0.0.0/4", "reserved"],
]);

/** Refused IPv6 ranges other than those carrying IPv4 (judged by the IPv4 address instead). */
const IPV6_REFUSED = ranges([
  ["::/128", "unspecified"],
  ["::1/128", "loopback"],
  // Local-use NAT64 prefix (RFC 8215): translates into the operator's own network.
  ["64:ff9b:1::/48", "private"],
  // Discard-only (RFC 6666).
  ["100::/64", "reserved"],
  ["2001:2::/48", "benchmarking"],
  // ORCHID and ORCHIDv2: identifiers, not routable.
  ["2001:10::/28", "reserved"],
  ["2001:20::/28", "reserved"],
  ["2001:db8::/32", "documentation"],
  ["3fff::/20", "documentation"],
  ["fc00::/7", "unique_local"],
  ["fe80::/10", "link_local"],
  // Deprecated site-local: the IPv6 counterpart of the private IPv4 ranges.
  ["fec0::/10", "private"],
  ["ff00::/8", "multicast"],
]);

/** Global unicast: IPv6 outside it (and outside the ranges above) is unassigned. */
const IPV6_GLOBAL_UNICAST = parseCidr("2000::/3") as Cidr;

interface Embedding {
  readonly kind: Ipv4Embedding;
  readonly cidr: Cidr;
  /** The IPv4 addresses the IPv6 address reaches. */
  readonly extract: (value: bigint) => bigint[];
}

const low32 = (value: bigint): bigint[] => [value & IPV4_ALL];

const EMBEDDINGS: readonly Embedding[] = [
  { kind: "ipv4_mapped", cidr: parseCidr("::ffff:0:0/96") as Cidr, extract: low32 },
  // SIIT IPv4-translated addresses (RFC 2765): ::ffff:0:a.b.c.d.
  { kind: "ipv4_translated", cidr: parseCidr("::ffff:0:0:0/96") as Cidr, extract: low32 },
  { kind: "nat64", cidr: parseCidr("64:ff9b::/96") as Cidr, extract: low32 },
  // 6to4 (RFC 3056): 2002:AABB:CCDD::/48 routes to AA.BB.CC.DD.
  { kind: "6to4", cidr: parseCidr("2002::/16") as Cidr, extract: (value) => [(value >> 80n) & IPV4_ALL] },
  // Teredo (RFC 4380): the server in bits 32-63, the client (bit-inverted) in the last 32 bits.
  {
    kind: "teredo",
    cidr: parseCidr("2001::/32") as Cidr,
    extract: (value) => [(value >> 64n) & IPV4_ALL, ~value & IPV4_ALL],
  },
  // Deprecated IPv4-compatible form ::a.b.c.d (:: and ::1 are matched before this).
  { kind: "ipv4_compatible", cidr: parseCidr("::/96") as Cidr, extract: low32 },
];

function isTrusted(ip: IpAddress, trusted: readonly Cidr[]): boolean {
  return trusted.some((cidr) => cidrContains(cidr, ip));
}

function refuse(range: Range): AddressVerdict {
  return { allowed: false, reason: range.reason, range: range.text };
}

/**
 * Judges one address. Refused: loopback, private, link-local, CGNAT, unique-local, benchmarking,
 * multicast, broadcast, reserved and unassigned, unspecified and documentation ranges, and IPv6
 * forms whose embedded IPv4 address is refused. Addresses inside a `trusted` network are allowed
 * (for an IPv6 form carrying IPv4, a trusted network containing that IPv4 address counts too).
 *
 * `trusted` is used as given: refusing loopback, link-local and unspecified networks in
 * `ssrf.trusted_networks` is the configuration's job (spec 2 §2), done before this runs.
 */
export function classifyAddress(ip: IpAddress, trusted: readonly Cidr[] = []): AddressVerdict {
  if (isTrusted(ip, trusted)) return { allowed: true };
  if (ip.version === 4) {
    const hit = IPV4_REFUSED.find((range) => cidrContains(range.cidr, ip));
    return hit === undefined ? { allowed: true } : refuse(hit);
  }
  const hit = IPV6_REFUSED.find((range) => cidrContains(range.cidr, ip));
  if (hit !== undefined) return refuse(hit);
  const embedding = EMBEDDINGS.find((candidate) => cidrContains(candidate.cidr, ip));
  if (embedding !== undefined) {
    for (const value of embedding.extract(ip.value)) {
      const verdict = classifyAddress({ version: 4, value }, trusted);
      if (!verdict.allowed) return { ...verdict, embeddedIn: embedding.kind };
    }
    // Nothing routes the deprecated compatible form any more: refused whatever it carries.
    if (embedding.kind === "ipv4_compatible") return { allowed: false, reason: "reserved", range: "::/96" };
    return { allowed: true };
  }
  if (!cidrContains(IPV6_GLOBAL_UNICAST, ip))
    return { allowed: false, reason: "reserved", range: "outside 2000::/3" };
  return { allowed: true };
}

const REASON_WORDS: Record<RefusalReason, string> = {
  unspecified: "the unspecified address",
  loopback: "a loopback address",
  private: "a private address",
  link_local: "a link-local address",
  cgnat: "a carrier-grade NAT address",
  unique_local: "a unique local IPv6 address",
  benchmarking: "a benchmarking address",
  multicast: "a multicast address",
  broadcast: "the broadcast address",
  reserved: "a reserved address",
  documentation: "a documentation address",
};

const EMBEDDING_WORDS: Record<Ipv4Embedding, string> = {
  ipv4_mapped: "an IPv4-mapped IPv6 address",
  ipv4_translated: "an IPv4-translated IPv6 address",
  ipv4_compatible: "an IPv4-compatible IPv6 address",
  nat64: "a NAT64 address",
  "6to4": "a 6to4 address",
  teredo: "a Teredo address",
};

/** `a loopback address (127.0.0.0/8)`, `a private address (10.0.0.0/8) inside a NAT64 address`. */
export function describeRefusal(verdict: Extract<AddressVerdict, { allowed: false }>): string {
  const base = `${REASON_WORDS[verdict.reason]} (${verdict.range})`;
  return verdict.embeddedIn === undefined ? base : `${base} inside ${EMBEDDING_WORDS[verdict.embeddedIn]}`;
}
