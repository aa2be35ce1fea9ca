/**
 * Validation of the CIDRs of `ssrf.trusted_networks` and `MCP_TRUSTED_PROXIES`, on the one address
 * parser the SSRF policy uses (domain/policy/ssrf.ts).
 */
import {
  type Cidr,
  cidrsOverlap,
  formatIp,
  parseCidr,
  parsePlainIp,
  readCidr,
} from "../../domain/policy/ssrf.js";

/** Ranges a trusted network must not touch: the SSRF policy exists to keep them unreachable. */
const SPECIAL_RANGES: ReadonlyArray<{ readonly label: string; readonly cidr: string }> = [
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
  const written = readCidr(trimmed);
  if (written === undefined) {
    const address = trimmed.includes("/") ? undefined : parsePlainIp(trimmed);
    if (address === undefined) return "must be a CIDR such as 10.0.0.0/8 or fd00::/8";
    return `must be a CIDR: add a prefix length (${trimmed}/${address.version === 4 ? 32 : 128} for this address alone)`;
  }
  const cidr = parseCidr(trimmed) as Cidr;
  if (cidr.network !== written.address.value) {
    const network = formatIp({ version: cidr.version, value: cidr.network });
    return `has host bits set (the network is ${network}/${cidr.prefix})`;
  }
  if (options.refuseSpecialRanges) {
    const hit = PARSED_SPECIAL.find((range) => cidrsOverlap(cidr, range.parsed));
    if (hit !== undefined) return `must not include ${hit.label} (${hit.cidr})`;
  }
  return undefined;
}

/** Why `text` is neither an address nor a CIDR (for trusted proxies), or undefined. */
export function describeAddressOrCidrProblem(text: string): string | undefined {
  const trimmed = text.trim();
  if (!trimmed.includes("/")) {
    return parsePlainIp(trimmed) === undefined ? "must be an IP address or a CIDR" : undefined;
  }
  return describeCidrProblem(trimmed, { refuseSpecialRanges: false });
}
