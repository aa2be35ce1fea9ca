import { describe, expect, it } from "vitest";
import {
  type AddressVerdict,
  cidrContains,
  classifyAddress,
  describeRefusal,
  formatIp,
  parseCidr,
  parseCidrList,
  parseIp,
  type RefusalReason,
} from "../../../src/domain/policy/ssrf.js";

function verdict(text: string, trusted: string[] = []): AddressVerdict {
  const ip = parseIp(text);
  if (ip === undefined) throw new Error(`test input is not an address: ${text}`);
  return classifyAddress(ip, parseCidrList(trusted));
}

function reasonOf(text: string, trusted: string[] = []): RefusalReason | "allowed" {
  const result = verdict(text, trusted);
  return result.allowed ? "allowed" : result.reason;
}

describe("parseIp reads every encoding of an IPv4 address", () => {
  it.each([
    ["127.0.0.1", "127.0.0.1"],
    ["2130706433", "127.0.0.1"],
    ["0177.0.0.1", "127.0.0.1"],
    ["0177.0.0.01", "127.0.0.1"],
    ["017700000001", "127.0.0.1"],
    ["0x7f.0.0.1", "127.0.0.1"],
    ["0X7F.0.0.1", "127.0.0.1"],
    ["0x7f000001", "127.0.0.1"],
    ["0x7f.1", "127.0.0.1"],
    ["127.1", "127.0.0.1"],
    ["127.0.1", "127.0.0.1"],
    ["10.1", "10.0.0.1"],
    ["0x0a.0.0.0x01", "10.0.0.1"],
    ["0xa9.0xfe.0251.0376", "169.254.169.254"],
    ["169.254.43518", "169.254.169.254"],
    ["2852039166", "169.254.169.254"],
    ["0", "0.0.0.0"],
    ["0x", "0.0.0.0"],
    ["127.0.0.1.", "127.0.0.1"],
    ["4294967295", "255.255.255.255"],
    ["192.168.0x1.1", "192.168.1.1"],
  ])("%s is %s", (text, canonical) => {
    const ip = parseIp(text);
    expect(ip?.version).toBe(4);
    expect(formatIp(ip!)).toBe(canonical);
  });

  it.each([
    "4294967296",
    "256.0.0.1",
    "1.2.3.4.5",
    "08.0.0.1",
    "0x7g.0.0.1",
    "1.2.3.256",
    "1.2.65536",
    "1..2.3",
    "",
    ".",
    "localhost",
    "example.com",
    "127.0.0.1.nip.io",
    " 127.0.0.1",
    "[127.0.0.1]",
  ])("%j is not an IPv4 address", (text) => {
    expect(parseIp(text)).toBeUndefined();
  });

  it("agrees with the WHATWG URL parser on every IPv4 form it accepts", () => {
    for (const text of [
      "2130706433",
      "0177.0.0.1",
      "0x7f.1",
      "127.1",
      "10.1",
      "0x7f.0.0.01",
      "0x",
      "1.0x10",
    ]) {
      const hostname = new URL(`http://${text}/`).hostname;
      expect(formatIp(parseIp(text)!)).toBe(hostname);
    }
  });
});

describe("parseIp reads IPv6 text", () => {
  it.each([
    ["::1", "::1"],
    ["[::1]", "::1"],
    ["0:0:0:0:0:0:0:1", "::1"],
    ["::", "::"],
    ["::ffff:127.0.0.1", "::ffff:7f00:1"],
    ["[::ffff:7f00:1]", "::ffff:7f00:1"],
    ["::FFFF:7F00:0001", "::ffff:7f00:1"],
    ["64:ff9b::10.0.0.1", "64:ff9b::a00:1"],
    ["fe80::1%eth0", "fe80::1%eth0"],
    ["[fe80::1%25eth0]", "fe80::1%25eth0"],
    ["2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"],
    ["1:2:3:4:5:6:7::", "1:2:3:4:5:6:7:0"],
    ["1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:102:304"],
  ])("%s is %s", (text, canonical) => {
    const ip = parseIp(text);
    expect(ip?.version).toBe(6);
    expect(formatIp(ip!)).toBe(canonical);
  });

  it.each([
    "1:2:3:4:5:6:7:8:9",
    "1:2:3:4:5:6:7:8::",
    "1::2::3",
    ":1",
    "1:::2",
    "12345::1",
    "::ffff:0177.0.0.1",
    "::ffff:1.2.3",
    "fe80::1%",
    "::g",
    "[::1",
  ])("%j is not an IPv6 address", (text) => {
    expect(parseIp(text)).toBeUndefined();
  });
});

describe("classifyAddress refuses every special-purpose range", () => {
  it.each<[string, RefusalReason | "allowed"]>([
    // IPv4
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["10.0.0.1", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "link_local"],
    ["100.64.0.1", "cgnat"],
    ["100.127.255.255", "cgnat"],
    ["198.18.0.1", "benchmarking"],
    ["198.19.255.255", "benchmarking"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.255", "multicast"],
    ["240.0.0.1", "reserved"],
    ["255.255.255.255", "broadcast"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["192.0.0.8", "reserved"],
    ["192.88.99.1", "reserved"],
    ["192.0.2.1", "documentation"],
    ["198.51.100.1", "documentation"],
    ["203.0.113.1", "documentation"],
    // Public IPv4, including the neighbours of refused ranges.
    ["8.8.8.8", "allowed"],
    ["93.184.216.34", "allowed"],
    ["172.15.255.255", "allowed"],
    ["172.32.0.0", "allowed"],
    ["100.63.255.255", "allowed"],
    ["100.128.0.0", "allowed"],
    ["198.17.255.255", "allowed"],
    ["198.20.0.0", "allowed"],
    ["223.255.255.255", "allowed"],
    ["11.0.0.1", "allowed"],
    // Bypass encodings of refused IPv4 addresses.
    ["2130706433", "loopback"],
    ["0177.0.0.1", "loopback"],
    ["0x7f.1", "loopback"],
    ["0x7f000001", "loopback"],
    ["127.1", "loopback"],
    ["10.1", "private"],
    ["0xa.0.0.1", "private"],
    ["012.0.0.1", "private"],
    ["167772161", "private"],
    ["0xa9fea9fe", "link_local"],
    ["169.254.43518", "link_local"],
    ["0", "unspecified"],
    ["0x", "unspecified"],
    // IPv6
    ["::1", "loopback"],
    ["[::1]", "loopback"],
    ["0:0:0:0:0:0:0:1", "loopback"],
    ["::", "unspecified"],
    ["fe80::1", "link_local"],
    ["fe80::1%eth0", "link_local"],
    ["febf:ffff::1", "link_local"],
    ["fc00::1", "unique_local"],
    ["fd12:3456::1", "unique_local"],
    ["fec0::1", "private"],
    ["ff02::1", "multicast"],
    ["ff0e::1", "multicast"],
    ["2001:db8::1", "documentation"],
    ["3fff::1", "documentation"],
    ["2001:2::1", "benchmarking"],
    ["2001:10::1", "reserved"],
    ["100::1", "reserved"],
    ["64:ff9b:1::1", "private"],
    ["4000::1", "reserved"],
    ["::2:3:4:5", "reserved"],
    // Public IPv6
    ["2606:4700:4700::1111", "allowed"],
    ["2a00:1450:4001:80b::200e", "allowed"],
    // IPv6 forms carrying IPv4: judged by the IPv4 address.
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["[::ffff:7f00:1]", "loopback"],
    ["0:0:0:0:0:ffff:7f00:0001", "loopback"],
    ["::ffff:10.0.0.1", "private"],
    ["::ffff:a9fe:a9fe", "link_local"],
    ["::ffff:0.0.0.0", "unspecified"],
    ["::ffff:8.8.8.8", "allowed"],
    ["::ffff:0:127.0.0.1", "loopback"],
    ["::ffff:0:8.8.8.8", "allowed"],
    ["::127.0.0.1", "loopback"],
    ["::8.8.8.8", "reserved"],
    ["64:ff9b::127.0.0.1", "loopback"],
    ["64:ff9b::7f00:1", "loopback"],
    ["64:ff9b::192.168.0.1", "private"],
    ["64:ff9b::8.8.8.8", "allowed"],
    ["2002:7f00:1::", "loopback"],
    ["2002:a9fe:a9fe::1", "link_local"],
    ["2002:0808:0808::1", "allowed"],
    // Teredo: server 65.54.227.120, client 127.0.0.1 (stored inverted as 80ff:fffe).
    ["2001:0:4136:e378:8000:63bf:80ff:fffe", "loopback"],
    // Teredo: server 10.0.0.1, client 8.8.8.8 (f7f7:f7f7).
    ["2001:0:a00:1::f7f7:f7f7", "private"],
    // Teredo: server 65.54.227.120, client 8.8.8.8.
    ["2001:0:4136:e378::f7f7:f7f7", "allowed"],
  ])("%s is %s", (text, expected) => {
    expect(reasonOf(text)).toBe(expected);
  });
});

describe("trusted networks", () => {
  it("accept addresses inside them that would otherwise be refused", () => {
    expect(reasonOf("10.1.2.3", ["10.0.0.0/8"])).toBe("allowed");
    expect(reasonOf("192.168.5.5", ["192.168.5.0/24"])).toBe("allowed");
    expect(reasonOf("192.168.6.5", ["192.168.5.0/24"])).toBe("private");
    expect(reasonOf("fd00::5", ["fd00::/8"])).toBe("allowed");
    expect(reasonOf("fe80::5", ["fd00::/8"])).toBe("link_local");
  });

  it("cover the IPv6 forms that carry a trusted IPv4 address", () => {
    expect(reasonOf("::ffff:10.1.2.3", ["10.0.0.0/8"])).toBe("allowed");
    expect(reasonOf("64:ff9b::10.1.2.3", ["10.0.0.0/8"])).toBe("allowed");
    expect(reasonOf("::ffff:10.1.2.3", ["10.0.0.0/16"])).toBe("private");
  });

  it("never match across IP versions", () => {
    expect(reasonOf("fd00::1", ["0.0.0.0/0"])).toBe("unique_local");
    expect(reasonOf("10.0.0.1", ["::/0"])).toBe("private");
  });

  it("are used as given, so a test may trust loopback (configuration refuses it at startup)", () => {
    expect(reasonOf("127.0.0.1", ["127.0.0.0/8"])).toBe("allowed");
  });
});

describe("CIDR matching", () => {
  it("parses networks and clears host bits", () => {
    expect(parseCidr("10.0.0.0/8")).toEqual({ version: 4, network: 10n << 24n, prefix: 8 });
    expect(parseCidr("10.1.2.3/8")).toEqual({ version: 4, network: 10n << 24n, prefix: 8 });
    expect(parseCidr("fd00::/8")?.prefix).toBe(8);
    expect(parseCidr("0.0.0.0/0")).toEqual({ version: 4, network: 0n, prefix: 0 });
  });

  it.each([
    "10.0.0.0",
    "10.0.0.0/33",
    "::/129",
    "10.1/16",
    "0x0a.0.0.0/8",
    "fe80::%eth0/10",
    "10.0.0.0/x",
    "/8",
  ])("%j is not a CIDR", (text) => {
    expect(parseCidr(text)).toBeUndefined();
  });

  it("contains exactly the addresses of the network", () => {
    const net = parseCidr("172.16.0.0/12")!;
    expect(cidrContains(net, parseIp("172.16.0.0")!)).toBe(true);
    expect(cidrContains(net, parseIp("172.31.255.255")!)).toBe(true);
    expect(cidrContains(net, parseIp("172.32.0.0")!)).toBe(false);
    expect(cidrContains(parseCidr("::/0")!, parseIp("10.0.0.1")!)).toBe(false);
    expect(cidrContains(parseCidr("0.0.0.0/0")!, parseIp("10.0.0.1")!)).toBe(true);
  });

  it("parseCidrList names the entry that is not a CIDR", () => {
    expect(() => parseCidrList(["10.0.0.0/8", "nope"])).toThrow("not a CIDR: nope");
  });
});

describe("describeRefusal", () => {
  it("says what kind of address was refused, and in which carrier", () => {
    const loopback = verdict("127.0.0.1");
    const nat64 = verdict("64:ff9b::10.0.0.1");
    if (loopback.allowed || nat64.allowed) throw new Error("expected refusals");
    expect(describeRefusal(loopback)).toBe("a loopback address (127.0.0.0/8)");
    expect(describeRefusal(nat64)).toBe("a private address (10.0.0.0/8) inside a NAT64 address");
  });
});
