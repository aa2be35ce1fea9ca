import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openComplianceExporter } from "../../../src/adapters/observability/compliance-export.js";
import { formatRecord } from "../../../src/adapters/observability/compliance-formats.js";
import type { AuditRecord } from "../../../src/app/ports/audit-trail.js";

const PRODUCT = { vendor: "Airlock", product: "MCP Gateway", version: "0.1.0", hostname: "gw-1", pid: 42 };

function record(outcome: "success" | "failure" | "denied", extra: Record<string, unknown> = {}): AuditRecord {
  return {
    id: "rec-1",
    occurred_at: 1_700_000_000.25,
    actor: "alice",
    action: "tool_invocation",
    target: "pool",
    outcome,
    details: {
      "mcp.server.id": "pool",
      "hangar.route.backend": "member-b",
      "mcp.tool.name": "add",
      "mcp.tool.status": outcome,
      call_id: "call-7",
      duration_ms: 15,
      ...extra,
    },
    tenant_id: "acme",
  };
}

/** CEF header: 7 `|`-separated fields (with `\|` escapes), then the extension. */
function cefParts(line: string) {
  const parts: string[] = [];
  let current = "";
  let i = 0;
  for (; i < line.length && parts.length < 7; i++) {
    const c = line[i];
    if (c === "\\") {
      current += line[i + 1];
      i++;
    } else if (c === "|") {
      parts.push(current);
      current = "";
    } else current += c;
  }
  return { header: parts, extension: line.slice(i) };
}

/** CEF extension `key=value` pairs (values may hold escaped `=` and spaces). */
function cefExtension(extension: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const match of extension.matchAll(/(\w+)=((?:\\.|[^\\])*?)(?= \w+=|$)/g))
    out[match[1] as string] = (match[2] as string).replace(/\\(.)/g, (_, c: string) =>
      c === "n" ? "\n" : c === "r" ? "\r" : c,
    );
  return out;
}

describe("compliance export formats", () => {
  it("writes CEF:0 with the seven header fields, signature 103 for a refused call and flexString1 for the member", () => {
    const line = formatRecord("cef", record("denied", { error_type: "ToolAccessDeniedError" }), PRODUCT);
    const { header, extension } = cefParts(line);
    expect(header).toEqual(["CEF:0", "Airlock", "MCP Gateway", "0.1.0", "103", "ToolInvocationDenied", "7"]);
    const fields = cefExtension(extension);
    expect(fields).toMatchObject({
      rt: String(1_700_000_000_250),
      suser: "alice",
      cs1: "pool",
      cs2: "add",
      outcome: "denied",
      flexString1Label: "routeBackend",
      flexString1: "member-b",
      cs5: "ToolAccessDeniedError",
    });
  });

  it("escapes CEF separators so a hostile value cannot forge fields", () => {
    const line = formatRecord("cef", { ...record("success"), actor: "eve=x cs1=forged\nnext|row" }, PRODUCT);
    expect(line).not.toContain("\n");
    expect(cefExtension(cefParts(line).extension)).toMatchObject({
      suser: "eve=x cs1=forged\nnext|row",
      cs1: "pool",
    });
    expect(line.startsWith("CEF:0|Airlock|MCP Gateway|0.1.0|101|ToolInvocationCompleted|3|")).toBe(true);
  });

  it("writes LEEF 1.0 with event id 103 and tab-separated attributes including routeBackend", () => {
    const line = formatRecord("leef", record("denied"), PRODUCT);
    const [version, vendor, product, productVersion, eventId, attributes] = line.split("|");
    expect([version, vendor, product, productVersion, eventId]).toEqual([
      "LEEF:1.0",
      "Airlock",
      "MCP Gateway",
      "0.1.0",
      "103",
    ]);
    const pairs = Object.fromEntries(
      (attributes ?? "").split("\t").map((pair) => pair.split(/=(.*)/s).slice(0, 2)),
    );
    expect(pairs).toMatchObject({
      devTime: "2023-11-14T22:13:20.250Z",
      usrName: "alice",
      mcpServerId: "pool",
      routeBackend: "member-b",
      toolName: "add",
      status: "denied",
      eventType: "ToolInvocationDenied",
    });
  });

  it("writes RFC 5424 syslog: PRI, version 1, timestamp, host, app, procid, MSGID 103 at warning, SD with routeBackend", () => {
    const line = formatRecord("syslog", record("denied"), PRODUCT);
    const match = line.match(
      /^<(\d{1,3})>1 (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z) (\S+) (\S+) (\S+) (\S+) \[(\S+) ((?:\w+="(?:\\.|[^"\\])*" ?)+)\] (.*)$/,
    );
    expect(match).not.toBeNull();
    const [, pri, timestamp, host, app, procid, msgid, sdId, params, message] = match as RegExpMatchArray;
    expect(Number(pri) % 8).toBe(4); // warning
    expect(Math.floor(Number(pri) / 8)).toBe(13); // log audit
    expect(timestamp).toBe("2023-11-14T22:13:20.250Z");
    expect([host, app, procid, msgid]).toEqual(["gw-1", "mcp-gateway", "42", "103"]);
    expect(sdId).toMatch(/^[^@=\]" ]+@\d+$/);
    expect(params).toContain('routeBackend="member-b"');
    expect(params).toContain('mcpServerId="pool"');
    expect(message).toBe("tool_invocation denied pool.add");
    const success = formatRecord("syslog", record("success"), PRODUCT);
    expect(success.startsWith(`<${13 * 8 + 6}>1 `)).toBe(true);
    expect(success.split(" ")[5]).toBe("101");
  });

  it("escapes RFC 5424 SD-PARAM values", () => {
    const line = formatRecord("syslog", { ...record("success"), actor: 'a"b]c\\d' }, PRODUCT);
    expect(line).toContain('user="a\\"b\\]c\\\\d"');
  });

  it("writes one JSON object per line with event_type and route_backend", () => {
    const line = formatRecord("json-lines", record("failure", { error_type: "ToolError" }), PRODUCT);
    expect(line).not.toContain("\n");
    expect(JSON.parse(line)).toMatchObject({
      event_type: "ToolInvocationFailed",
      timestamp: "2023-11-14T22:13:20.250Z",
      mcp_server_id: "pool",
      route_backend: "member-b",
      tool_name: "add",
      status: "failure",
      user: "alice",
      tenant_id: "acme",
      error_type: "ToolError",
    });
  });
});

describe("compliance exporter output", () => {
  const dir = mkdtempSync(join(tmpdir(), "airlock-compliance-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("appends batches to the output file, one line per record", async () => {
    const path = join(dir, "out.jsonl");
    const exporter = await openComplianceExporter("json-lines", path, PRODUCT);
    await exporter.write([record("success"), record("denied")]);
    await exporter.write([record("failure")]);
    const lines = readFileSync(path, "utf8").trimEnd().split("\n");
    expect(lines.map((line) => JSON.parse(line).event_type)).toEqual([
      "ToolInvocationCompleted",
      "ToolInvocationDenied",
      "ToolInvocationFailed",
    ]);
  });

  it("refuses an output that cannot be opened for appending", async () => {
    await expect(openComplianceExporter("cef", join(dir, "missing-dir", "out.log"), PRODUCT)).rejects.toThrow(
      /MCP_COMPLIANCE_OUTPUT: cannot write .*ENOENT/,
    );
  });
});
