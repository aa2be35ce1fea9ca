/**
 * CIDR parsing for `ssrf.trusted_networks` and `MCP_TRUSTED_PROXIES`. Addresses are read as
 * 32- or 128-bit integers so that containment and host bits are exact, for IPv4 and IPv6 alike.
 */
import { isIPv4, isIPv6 } from "node:net";

export interface Cidr {
  readonly version: 4 | 6;
  /** The network address as an integer of `version === 4 ? 32 : 128` bits. */
  readonly address: bigint;
  readonly prefix: number;
}

function ipv4ToBigInt(text: string): bigint | undefined {
  // node:net accepts only dotted quads without leading zeros, so octal look-alikes are refused.
  if (!isIPv4(text)) return undefined;
  return text.split(".").reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

function ipv6ToBigInt(text: string): bigint | undefined {
  if (!isIPv6(text) || text.includes("%")) return undefined;
  let groups = text;
  const lastColon = groups.lastIndexOf(":");
  const tail = groups.slice(lastColon + 1);
  if (tail.includes(".")) {
    const v4 = ipv4ToBigInt(tail);
    if (v4 === undefined) return undefined;
    groups = `${groups.slice(0, lastColon + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head = "", rest] = groups.split("::");
  const left = head === "" ? [] : head.split(":");
  const right = rest === undefined || rest === "" ? [] : rest.split(":");
  const missing = 8 - left.length - right.length;
  const all = rest === undefined ? left : [...left, ...Array<string>(missing).fill("0"), ...right];
  if (all.length !== 8) return undefined;
  return all.reduce((acc, part) => (acc << 16n) | BigInt(Number.parseInt(part, 16)), 0n);
}

/** Reads an address without prefix. */
export function parseAddress(text: string): { version: 4 | 6; address: bigint } | undefined {
  const v4 = ipv4ToBigInt(text);
  if (v4 !== undefined) return { version: 4, address: v4 };
  const v6 = ipv6ToBigInt(text);
  if (v6 !== undefined) return { version: 6, address: v6 };
  return undefined;
}

function bits(version: 4 | 6): number {
  return version === 4 ? 32 : 128;
}

function mask(version: 4 | 6, prefix: number): bigint {
  const width = BigInt(bits(version));
  return ((1n << width) - 1n) ^ ((1n << (width - BigInt(prefix))) - 1n);
}

/** Reads `address/prefix` exactly as written (host bits are kept so they can be reported). */
export function parseCidr(text: string): Cidr | undefined {
  const slash = text.indexOf("/");
  if (slash < 0) return undefined;
  const parsed = parseAddress(text.slice(0, slash));
  const prefixText = text.slice(slash + 1);
  if (parsed === undefined || !/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = Number(prefixText);
  if (prefix > bits(parsed.version)) return undefined;
  return { version: parsed.version, address: parsed.address, prefix };
}

function formatAddress(version: 4 | 6, address: bigint): string {
  if (version === 4) {
    return [24n, 16n, 8n, 0n].map((shift) => ((address >> shift) & 0xffn).toString()).join(".");
  }
  const groups = [];
  for (let shift = 112n; shift >= 0n; shift -= 16n) groups.push(((address >> shift) & 0xffffn).toString(16));
  return groups.join(":").replace(/(^|:)0(:0)+(:|$)/, "::");
}

/** True when the two networks share at least one address. */
export function overlaps(a: Cidr, b: Cidr): boolean {
  if (a.version !== b.version) return false;
  const prefix = Math.min(a.prefix, b.prefix);
  const m = mask(a.version, prefix);
  return (a.address & m) === (b.address & m);
}

interface SpecialRange {
  readonly label: string;
  readonly cidr: string;
}

/** Ranges a trusted network must not touch: the SSRF policy exists to keep them unreachable. */
const SPECIAL_RANGES: readonly SpecialRange[] = [
  { label: "the unspecified address", cidr: "0.0.0.0/32" },
  { label: "loopback addresses", cidr: "127.0.0.0/8" },
  { label: "link-local addresses", cidr: "169.254.0.0/16" },
  { label: "the unspecified address", cidr: "::/128" },
  { label: "loopback addresses", cidr: "::1/128" },
  { label: "link-local addresses", cidr: "fe80::/10" },
  // IPv4-mapped forms of the same ranges reach the same hosts.
  { label: "the unspecified address", cidr: "::ffff:0.0.0.0/128" },
  { label: "loopback addresses", cidr: "::ffff:127.0.0.0/104" },
  { label: "link-local addresses", cidr: "::ffff:169.254.0.0/112" },
];

const PARSED_SPECIAL = SPECIAL_RANGES.map((range) => ({ ...range, parsed: parseCidr(range.cidr) as Cidr }));

/**
 * Why `text` is not an acceptable CIDR, or undefined when it is. With `refuseSpecialRanges`,
 * networks overlapping loopback, link-local or the unspecified address are refused too.
 */
export function describeCidrProblem(
  text: string,
  options: { refuseSpecialRanges: boolean },
): string | undefined {
  const trimmed = text.trim();
  const cidr = parseCidr(trimmed);
  if (cidr === undefined) {
    const address = trimmed.includes("/") ? undefined : parseAddress(trimmed);
    if (address === undefined) return "must be a CIDR such as 10.0.0.0/8 or fd00::/8";
    return `must be a CIDR: add a prefix length (${trimmed}/${bits(address.version)} for this address alone)`;
  }
  const networkAddress = cidr.address & mask(cidr.version, cidr.prefix);
  if (networkAddress !== cidr.address) {
    return `has host bits set (the network is ${formatAddress(cidr.version, networkAddress)}/${cidr.prefix})`;
  }
  if (options.refuseSpecialRanges) {
    const hit = PARSED_SPECIAL.find((range) => overlaps(cidr, range.parsed));
    if (hit !== undefined) return `must not include ${hit.label} (${hit.cidr})`;
  }
  return undefined;
}

/** Why `text` is neither an address nor a CIDR (for trusted proxies), or undefined. */
export function describeAddressOrCidrProblem(text: string): string | undefined {
  const trimmed = text.trim();
  if (!trimmed.includes("/")) {
    return parseAddress(trimmed) === undefined ? "must be an IP address or a CIDR" : undefined;
  }
  return describeCidrProblem(trimmed, { refuseSpecialRanges: false });
}
