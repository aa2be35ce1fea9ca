import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { CLI, runCli, serveHttp, writeTempConfig } from "../support/cli.js";
import { ARITHMETIC, fleetYaml, waitFor } from "../support/gateway.js";
import { callJson, connectHttp } from "../support/mcp-client.js";
import { descendants, isAlive } from "../support/processes.js";

describe("airlock serve", () => {
  it("serves REST and MCP, and after SIGTERM exits 0 leaving no child process behind", async () => {
    const gateway = await serveHttp(writeTempConfig(fleetYaml()));
    const gatewayPid = gateway.child.pid!;
    const client = await connectHttp(gateway.baseUrl);
    const started = await fetch(new URL("/api/mcp_servers/math/start", gateway.baseUrl), { method: "POST" });
    expect(started.status).toBe(200);
    const { json } = await callJson(client, "gateway_call", {
      calls: [{ mcp_server: "ctl", tool: "spawn_grandchild", arguments: {} }],
    });
    const grandchild = Number(JSON.stringify(json.results[0].result).match(/\d{2,}/)?.[0]);
    expect(isAlive(grandchild)).toBe(true);
    const children = descendants(gatewayPid);
    expect(children.length).toBeGreaterThanOrEqual(3);
    await client.close();

    gateway.child.kill("SIGTERM");
    expect(await gateway.exited).toBe(0);
    await waitFor(() => children.every((pid) => !isAlive(pid)), 5_000);
    expect(isAlive(grandchild)).toBe(false);
  });
});

describe("airlock serve shutdown", () => {
  it("stops cleanly on SIGINT too", async () => {
    const gateway = await serveHttp(writeTempConfig(fleetYaml()));
    const started = await fetch(new URL("/api/mcp_servers/text/start", gateway.baseUrl), { method: "POST" });
    expect(started.status).toBe(200);
    const children = descendants(gateway.child.pid!);
    gateway.child.kill("SIGINT");
    expect(await gateway.exited).toBe(0);
    await waitFor(() => children.every((pid) => !isAlive(pid)), 5_000);
  });

  it("does not wait on a front-door client's idle GET stream: SIGTERM ends it and exits 0", async () => {
    const yaml = `tool_access: {mode: front_door}\nmcp_servers:\n  math:\n    command: [node, ${JSON.stringify(ARITHMETIC)}]\n`;
    const gateway = await serveHttp(writeTempConfig(yaml));
    const client = await connectHttp(gateway.baseUrl);
    try {
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      // The SDK client opens its GET stream for server-initiated messages after initializing.
      await new Promise((resolve) => setTimeout(resolve, 500));
      gateway.child.kill("SIGTERM");
      const outcome = await Promise.race([
        gateway.exited,
        new Promise((resolve) => setTimeout(() => resolve("still running"), 15_000)),
      ]);
      expect(outcome).toBe(0);
    } finally {
      await client.close().catch(() => undefined);
      gateway.child.kill("SIGKILL");
    }
  });

  it("refuses a call held for approval at SIGTERM and exits at once, without waiting for its deadline", async () => {
    const yaml = [
      "tool_access: {mode: front_door}",
      "approvals: {enabled: true}",
      "mcp_servers:",
      "  math:",
      `    command: [node, ${JSON.stringify(ARITHMETIC)}]`,
      "    tools: {approval_list: [add]}",
    ].join("\n");
    const gateway = await serveHttp(writeTempConfig(`${yaml}\n`));
    const client = await connectHttp(gateway.baseUrl);
    try {
      await waitFor(async () => (await client.listTools()).tools.some((tool) => tool.name === "add"), 20_000);
      const held = client.callTool({ name: "add", arguments: { a: 1, b: 2 } }).then(
        (result) => result,
        (error: unknown) => error,
      );
      await waitFor(async () => {
        const response = await fetch(`${gateway.baseUrl}/api/approvals`);
        return ((await response.json()) as unknown[]).length === 1;
      }, 10_000);
      const began = Date.now();
      gateway.child.kill("SIGTERM");
      const outcome = await Promise.race([
        gateway.exited,
        new Promise((resolve) => setTimeout(() => resolve("still running"), 20_000)),
      ]);
      expect(outcome).toBe(0);
      // The held call's own deadline is 60 s away: it was refused rather than waited for.
      expect(Date.now() - began).toBeLessThan(20_000);
      // The call ended too, with the hold's refusal (or, when its connection was among those closed
      // first, with the HTTP server's 503 while stopping): it does not hang.
      expect(JSON.stringify(await held)).toMatch(/held for approval and refused|503/);
    } finally {
      await client.close().catch(() => undefined);
      gateway.child.kill("SIGKILL");
    }
  });

  it("handles a SIGTERM that arrives before it listens", async () => {
    const child = spawn(
      process.execPath,
      [CLI, "serve", "--config", writeTempConfig(fleetYaml()), "--port", "0", "--json-logs"],
      { stdio: ["ignore", "pipe", "ignore"] },
    );
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    // The first line ("gateway started") comes before the HTTP server listens.
    await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });

  it("exits 0 on SIGTERM in stdio mode even while the client keeps stdin open", async () => {
    const child = spawn(
      process.execPath,
      [CLI, "serve", "--stdio", "--config", writeTempConfig(fleetYaml())],
      {
        stdio: ["pipe", "pipe", "pipe"],
      },
    );
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    await new Promise<void>((resolve) =>
      child.stderr.on("data", (chunk) => String(chunk).includes("gateway started") && resolve()),
    );
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    child.stdin.end();
  });
});

describe("airlock config check", () => {
  it("exits 0 for a valid file", () => {
    const result = runCli(["config", "check", "--config", writeTempConfig(fleetYaml())]);
    expect(result.code).toBe(0);
  });

  it("exits 1 listing every problem by path", () => {
    const path = writeTempConfig(`
mcp_servers:
  a:
    mode: subprocess
    idle_ttl_s: 0
  b:
    mode: remote
`);
    const result = runCli(["config", "check", "--config", path]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("mcp_servers.a.idle_ttl_s");
    expect(result.stderr).toContain("mcp_servers.a.command");
    expect(result.stderr).toContain("mcp_servers.b.endpoint");
  });

  it("refuses a declared tool that breaks a refuse_boot header-exposure block, as serve does", () => {
    const path = writeTempConfig(`
mcp_servers:
  declared:
    command: [node, x.mjs]
    tools:
      - name: query
        inputSchema: {type: object, properties: {region: {type: string, x-mcp-header: Region}}}
    header_exposure: {deny_annotated: ["reg*"], on_violation: refuse_boot}
`);
    const result = runCli(["config", "check", "--config", path]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      "mcp_servers.declared.tools: tool 'query' exposes property 'region' as header Mcp-Param-Region",
    );
  });

  it("passes, with a warning, an approval_list without a gate when startup_checks.enforce is false", () => {
    const path = writeTempConfig(`
startup_checks: {enforce: false}
approvals: {enabled: false}
mcp_servers:
  math:
    command: [node, x.mjs]
    tools: {approval_list: [add]}
`);
    const result = runCli(["config", "check", "--config", path]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      "warning: mcp_servers.math.tools.approval_list: holds calls for approval but approvals.enabled is false",
    );
  });

  it("refuses unknown keys that serve only warns about", () => {
    const path = writeTempConfig(`${fleetYaml()}\nsurprise_section: {a: 1}\n`);
    const result = runCli(["config", "check", "--config", path]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("surprise_section");
  });

  it("exits 2 with a message for a configuration path that cannot be read", () => {
    const result = runCli(["config", "check", "--config", tmpdir()]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: .*: it is a directory\n$/);
  });

  it("prints the warnings serve would log on stderr, and passes", () => {
    const path = writeTempConfig(`approvals: {channel: dashboard}\n${fleetYaml()}`);
    const result = runCli(["config", "check", "--config", path]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^configuration OK: /);
    expect(result.stderr).toMatch(/^warning: approvals\.channel: .*\(deprecated_config_value\)$/m);
  });

  it("refuses a YAML alias bomb with a problem, not a crash", () => {
    const levels = ["a: &a [x, x, x, x, x, x, x, x, x]"];
    for (const [index, name] of ["b", "c", "d", "e", "f", "g"].entries()) {
      const previous = levels[index]?.[0];
      levels.push(`${name}: &${name} [${Array(9).fill(`*${previous}`).join(", ")}]`);
    }
    const result = runCli(["config", "check", "--config", writeTempConfig(levels.join("\n"))]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("YAML aliases expand too far");
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it("exits 2 naming a configuration file that does not exist", () => {
    const result = runCli(["config", "check", "--config", "/nonexistent/airlock.yaml"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("/nonexistent/airlock.yaml");
  });

  it("takes the file from MCP_CONFIG when no flag names one", () => {
    const result = runCli(["config", "check"], { MCP_CONFIG: "/nonexistent/from-env.yaml" });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("/nonexistent/from-env.yaml");
  });
});

describe("airlock config check reports", () => {
  it("echoes the refused value and suggests the nearest key or enum value at any depth", () => {
    const path = writeTempConfig(`${fleetYaml()}
logging: {level: WARN, levl: 1}
auth: {oidc: {isuer: x}}
`);
    const result = runCli(["config", "check", "--config", path]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      '  logging.level: must be one of DEBUG, INFO, WARNING, ERROR (got "WARN"; did you mean WARNING?)\n',
    );
    expect(result.stderr).toContain(
      "  logging.levl: unknown key; refused in strict mode (did you mean level?)\n",
    );
    // A misspelt section: the loader's hint, printed once.
    const section = runCli([
      "config",
      "check",
      "--config",
      writeTempConfig(`${fleetYaml()}\nloging: {level: INFO}\n`),
    ]);
    expect(section.stderr).toContain(
      "  loging: unknown key (did you mean logging?); refused in strict mode\n",
    );
    expect(result.stderr).toContain(
      "warning: auth.oidc.isuer: unknown key; ignored (did you mean issuer?) (unknown_nested_config_key)\n",
    );
  });

  it("never echoes a secret it refuses", () => {
    const path = writeTempConfig(`${fleetYaml()}
truncation: {redis_url: "http://user:hunter2@cache:6379"}
`);
    const result = runCli(["config", "check", "--config", path]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("truncation.redis_url");
    expect(result.stderr).not.toContain("hunter2");
  });

  it("shows a YAML syntax error's place once, with a code frame", () => {
    const path = writeTempConfig("logging:\n  level: INFO\na: b: c\n");
    const result = runCli(["config", "check", "--config", path]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      "invalid configuration: 1 problem(s)\n" +
        `  ${path}:3:4: YAML syntax error: Nested mappings are not allowed in compact mappings\n` +
        "    a: b: c\n" +
        "       ^\n",
    );
  });

  it("writes one JSON report with --format json, for a valid, an invalid and an unreadable file", () => {
    const valid = runCli(["config", "check", "--format", "json", "--config", writeTempConfig(fleetYaml())]);
    expect(valid.code).toBe(0);
    expect(JSON.parse(valid.stdout)).toMatchObject({ ok: true, errors: [], warnings: [] });
    const path = writeTempConfig(`${fleetYaml()}\ntool_access: {mode: egres}\n`);
    const invalid = runCli(["config", "check", "--format", "json", "--config", path]);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toBe("");
    expect(JSON.parse(invalid.stdout)).toEqual({
      ok: false,
      file: path,
      errors: [
        {
          path: "tool_access.mode",
          message: "must be one of egress, front_door",
          code: "invalid_value",
          value: "egres",
          suggestion: "egress",
        },
      ],
      warnings: [],
    });
    const missing = runCli(["config", "check", "--format", "json", "--config", "/nonexistent/airlock.yaml"]);
    expect(missing.code).toBe(2);
    expect(JSON.parse(missing.stdout)).toMatchObject({
      ok: false,
      errors: [{ path: "/nonexistent/airlock.yaml", code: "config_file_missing" }],
    });
  });
});

describe("airlock config schema", () => {
  it("prints the JSON Schema published as docs/config.schema.json", () => {
    const result = runCli(["config", "schema"]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(JSON.parse(readFileSync("docs/config.schema.json", "utf8")));
  });

  it("prints the chart's variant, where a scalar may be an environment reference, with --allow-references", () => {
    const result = runCli(["config", "schema", "--allow-references"]);
    expect(result.code).toBe(0);
    const level = JSON.parse(result.stdout).properties.logging.properties.level;
    expect(level.default).toBe("INFO");
    expect(level.anyOf.map((branch: { pattern?: string }) => branch.pattern)).toContain(
      "\\$\\{[A-Z_][A-Z0-9_]*\\}",
    );
  });
});

describe("airlock serve and unknown keys", () => {
  const withUnknownKeys = () =>
    writeTempConfig(
      `${fleetYaml()}\nsurprise_section: {a: 1}\n`.replace("description: Arithmetic tools", "bogus_key: 1"),
    );

  it("warns about each unknown key with its path and serves anyway", async () => {
    const gateway = await serveHttp(withUnknownKeys());
    gateway.child.kill("SIGTERM");
    expect(await gateway.exited).toBe(0);
    const warnings = gateway
      .stdout()
      .split("\n")
      .filter((line) => line.includes("unknown_config_key"))
      .map((line) => JSON.parse(line).path);
    expect(warnings).toEqual(expect.arrayContaining(["mcp_servers.math.bogus_key", "surprise_section"]));
  });

  it("refuses them under GATEWAY_CONFIG_STRICT=1", () => {
    const result = runCli(["serve", "--config", withUnknownKeys(), "--port", "0"], {
      GATEWAY_CONFIG_STRICT: "1",
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("mcp_servers.math.bogus_key");
    expect(result.stderr).toContain("surprise_section");
  });
});

describe("airlock serve refusals", () => {
  it("refuses an empty --port instead of binding any port", () => {
    const result = runCli(["serve", "--config", writeTempConfig(fleetYaml()), "--port", ""]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("--port must be an integer between 0 and 65535");
  });

  // A directory, and a path Node's own recursive mkdir never returns for (the gateway must not spin).
  it.each([
    [tmpdir(), "it is a directory"],
    ["/proc/nonexistent/airlock.log", "ENOENT"],
  ])("exits 1 at once with one line when the log file %s cannot be opened", (path, reason) => {
    const config = writeTempConfig(fleetYaml());
    const result = runCli(["serve", "--config", config, "--port", "0", "--log-file", path]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`error: cannot open the log file ${path}: ${reason}\n`);
  });

  it("takes --log-level in any case, and names the flag for a wrong one", () => {
    const config = writeTempConfig(fleetYaml());
    const wrong = runCli(["serve", "--config", config, "--port", "0", "--log-level", "loud"]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain("--log-level: ");
    const lower = runCli(["serve", "--config", "/nonexistent/airlock.yaml", "--log-level", "debug"]);
    expect(lower.stderr).not.toContain("--log-level");
    expect(lower.stderr).toContain("/nonexistent/airlock.yaml");
  });

  it("exits 1 without serving when the named configuration file is missing", () => {
    const result = runCli(["serve", "--config", "/nonexistent/airlock.yaml", "--port", "0"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("/nonexistent/airlock.yaml");
  });
});

describe("airlock version", () => {
  it("prints the version, as a command and as --version or -V", () => {
    const results = [runCli(["version"]), runCli(["--version"]), runCli(["-V"])];
    for (const result of results) {
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^airlock \d+\.\d+\.\d+\n$/);
    }
  });
});

describe("airlock serve's start-up line", () => {
  /** The JSON log lines written so far, parsed. */
  const linesOf = (out: string) =>
    out
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, unknown>);

  it("comes once the port is bound, naming the address bound, and warns of a reachable listener with auth off", async () => {
    const gateway = await serveHttp(writeTempConfig(fleetYaml()), "0.0.0.0");
    try {
      expect(gateway.baseUrl).toMatch(/^http:\/\/0\.0\.0\.0:\d+$/);
      await waitFor(() => linesOf(gateway.stdout()).some((line) => line.level === "WARNING"));
      const lines = linesOf(gateway.stdout());
      const started = lines.filter((line) => line.msg === "gateway started");
      expect(started).toHaveLength(1);
      expect(started[0]).toMatchObject({
        version: expect.stringMatching(/^\d+\.\d+\.\d+/),
        transport: "http",
        address: gateway.baseUrl,
        topology: "egress",
        auth: { enabled: false },
        console: "/ui",
        rate_limit: { rps: expect.any(Number), burst: expect.any(Number) },
      });
      // The endpoint in force: with nothing set, the default of the default protocol.
      expect(started[0]?.tracing).toEqual(
        process.env.OTEL_EXPORTER_OTLP_ENDPOINT === undefined
          ? { enabled: true, otlp_endpoint: "http://localhost:4318/v1/traces", protocol: "http/protobuf" }
          : expect.objectContaining({ enabled: true }),
      );
      const warning = lines.find((line) => line.level === "WARNING");
      expect(String(warning?.msg)).toContain("authentication is off on a listener other machines can reach");
      const answer = await fetch(`${gateway.baseUrl.replace("0.0.0.0", "127.0.0.1")}/health/live`);
      expect(answer.status).toBe(200);
    } finally {
      gateway.child.kill("SIGTERM");
      await gateway.exited;
    }
  });

  it("does not warn on a loopback listener", async () => {
    const gateway = await serveHttp(writeTempConfig(fleetYaml()));
    try {
      expect(linesOf(gateway.stdout()).some((line) => line.level === "WARNING")).toBe(false);
    } finally {
      gateway.child.kill("SIGTERM");
      await gateway.exited;
    }
  });

  it("is not written when binding fails, which is a JSON line under --json-logs and exit code 1", async () => {
    const taken = await serveHttp(writeTempConfig(fleetYaml()));
    try {
      const port = new URL(taken.baseUrl).port;
      const result = runCli([
        "serve",
        "--config",
        writeTempConfig(fleetYaml()),
        "--port",
        port,
        "--json-logs",
      ]);
      expect(result.code).toBe(1);
      const lines = linesOf(result.stdout);
      expect(lines.some((line) => line.msg === "gateway started")).toBe(false);
      expect(lines.find((line) => line.fatal === true)).toMatchObject({
        level: "ERROR",
        msg: "gateway stopped: cannot serve",
        reason: expect.stringContaining(`cannot listen on 127.0.0.1:${port}`),
      });
      expect(result.stderr).not.toContain("error: cannot listen");
    } finally {
      taken.child.kill("SIGTERM");
      await taken.exited;
    }
  });
});
