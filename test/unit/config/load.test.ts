import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  ConfigFileMissingError,
  ConfigFileReadError,
  ConfigValidationError,
  type Environment,
  loadConfig,
  parseConfig,
  resolveConfigPath,
} from "../../../src/config/load.js";

const SERVER = "mcp_servers:\n  math:\n    command: [node, math.js]\n";

let root: string;
let cwd: string;
let home: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "airlock-config-"));
  cwd = join(root, "work");
  home = join(root, "home");
  mkdirSync(cwd);
  mkdirSync(join(home, ".config", "airlock"), { recursive: true });
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function write(path: string, text = SERVER): string {
  writeFileSync(path, text);
  return path;
}

/** The issues of a refused configuration. */
function refusal(run: () => unknown): ConfigValidationError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigValidationError) return error;
    throw error;
  }
  throw new Error("the configuration was accepted");
}

function parse(text: string, env: Environment = {}, overrides = {}) {
  return parseConfig(text, { env, overrides });
}

describe("configuration file resolution", () => {
  it("takes the command-line path before MCP_CONFIG and ./config.yaml", () => {
    write(join(cwd, "config.yaml"));
    const resolved = resolveConfigPath({
      cliPath: "custom.yaml",
      env: { MCP_CONFIG: "/etc/env.yaml" },
      cwd,
      home,
    });
    expect(resolved).toMatchObject({ path: join(cwd, "custom.yaml"), explicit: true, source: "cli" });
  });

  it("takes MCP_CONFIG when no path is given on the command line", () => {
    write(join(cwd, "config.yaml"));
    const resolved = resolveConfigPath({ env: { MCP_CONFIG: "/etc/airlock.yaml" }, cwd, home });
    expect(resolved).toMatchObject({ path: "/etc/airlock.yaml", explicit: true, source: "env" });
  });

  it("expands a leading ~ in MCP_CONFIG to the home directory", () => {
    const resolved = resolveConfigPath({ env: { MCP_CONFIG: "~/gateway.yaml" }, cwd, home });
    expect(resolved.path).toBe(join(home, "gateway.yaml"));
  });

  it("ignores an empty MCP_CONFIG", () => {
    write(join(cwd, "config.yaml"));
    expect(resolveConfigPath({ env: { MCP_CONFIG: "  " }, cwd, home })).toMatchObject({
      source: "cwd",
      explicit: false,
    });
  });

  it("takes ./config.yaml before the file in the home directory", () => {
    write(join(cwd, "config.yaml"));
    write(join(home, ".config", "airlock", "config.yaml"));
    expect(resolveConfigPath({ env: {}, cwd, home })).toMatchObject({
      path: join(cwd, "config.yaml"),
      source: "cwd",
    });
  });

  it("falls back to ~/.config/airlock/config.yaml when the working directory has none", () => {
    const homeFile = write(join(home, ".config", "airlock", "config.yaml"));
    expect(resolveConfigPath({ env: {}, cwd, home })).toMatchObject({
      path: homeFile,
      explicit: false,
      source: "home",
    });
  });
});

describe("loading the configuration file", () => {
  it("loads the file named by MCP_CONFIG and reports its path", () => {
    const file = write(join(root, "named.yaml"));
    const loaded = loadConfig({ env: { MCP_CONFIG: file }, cwd, home });
    expect(loaded.path).toBe(file);
    expect(Object.keys(loaded.config.mcp_servers)).toEqual(["math"]);
  });

  it("stops with ConfigFileMissingError naming a command-line file that does not exist", () => {
    write(join(cwd, "config.yaml"));
    const missing = join(root, "absent.yaml");
    expect(() => loadConfig({ cliPath: missing, env: {}, cwd, home })).toThrow(ConfigFileMissingError);
    expect(() => loadConfig({ cliPath: missing, env: {}, cwd, home })).toThrow(missing);
  });

  it("stops with ConfigFileMissingError naming an MCP_CONFIG file that does not exist, without falling back", () => {
    write(join(cwd, "config.yaml"));
    const missing = join(root, "absent.yaml");
    expect(() => loadConfig({ env: { MCP_CONFIG: missing }, cwd, home })).toThrow(
      new ConfigFileMissingError(missing, `configuration file not found: ${missing} (named by MCP_CONFIG)`),
    );
  });

  it("stops with ConfigFileMissingError listing every place searched when no file exists", () => {
    const load = () => loadConfig({ env: {}, cwd, home });
    expect(load).toThrow(ConfigFileMissingError);
    expect(load).toThrow(join(cwd, "config.yaml"));
    expect(load).toThrow(join(home, ".config", "airlock", "config.yaml"));
  });

  it("refuses a directory in place of the file with ConfigFileReadError", () => {
    expect(() => loadConfig({ cliPath: root, env: {}, cwd, home })).toThrow(ConfigFileReadError);
  });

  it("refuses unknown keys when GATEWAY_CONFIG_STRICT=1 and warns about them otherwise", () => {
    const file = write(join(root, "c.yaml"), `${SERVER}colour: blue\n`);
    const relaxed = loadConfig({ cliPath: file, env: {}, cwd, home });
    expect(relaxed.warnings).toEqual([
      { path: "colour", message: "unknown key; ignored", code: "unknown_config_key" },
    ]);
    const error = refusal(() =>
      loadConfig({ cliPath: file, env: { GATEWAY_CONFIG_STRICT: "1" }, cwd, home }),
    );
    expect(error.issues).toEqual([
      { path: "colour", message: "unknown key; refused in strict mode", code: "unknown_config_key" },
    ]);
  });

  it("lets the strict option of the check command win over the environment", () => {
    const file = write(join(root, "c.yaml"), `${SERVER}colour: blue\n`);
    expect(() =>
      loadConfig({ cliPath: file, env: { GATEWAY_CONFIG_STRICT: "0" }, cwd, home, strict: true }),
    ).toThrow(ConfigValidationError);
  });

  it("names the file in the message of a validation error", () => {
    const file = write(join(root, "bad.yaml"), "logging: {level: LOUD}\n");
    const error = refusal(() => loadConfig({ cliPath: file, env: {}, cwd, home }));
    expect(error.message).toContain(file);
    expect(error.message).toContain("logging.level: must be one of DEBUG, INFO, WARNING, ERROR");
  });
});

describe("environment precedence", () => {
  it("lets MCP_LOG_LEVEL win over logging.level", () => {
    expect(parse("logging: {level: WARNING}", { MCP_LOG_LEVEL: "debug" }).config.logging.level).toBe("DEBUG");
  });

  it("keeps logging.level when MCP_LOG_LEVEL is INFO", () => {
    expect(parse("logging: {level: ERROR}", { MCP_LOG_LEVEL: "INFO" }).config.logging.level).toBe("ERROR");
    expect(parse("{}", { MCP_LOG_LEVEL: "INFO" }).config.logging.level).toBe("INFO");
  });

  it("lets --log-level win over MCP_LOG_LEVEL, except INFO", () => {
    expect(parse("{}", { MCP_LOG_LEVEL: "ERROR" }, { logLevel: "DEBUG" }).config.logging.level).toBe("DEBUG");
    expect(parse("{}", { MCP_LOG_LEVEL: "ERROR" }, { logLevel: "INFO" }).config.logging.level).toBe("ERROR");
    expect(parse("logging: {level: WARNING}", {}, { logLevel: "INFO" }).config.logging.level).toBe("WARNING");
  });

  it("lets --json-logs, MCP_JSON_LOGS and --log-file win over the logging block", () => {
    const text = "logging: {json_format: false, file: a.log}";
    expect(parse(text, { MCP_JSON_LOGS: "true" }).config.logging.json_format).toBe(true);
    expect(parse(text, { MCP_JSON_LOGS: "0" }, { jsonLogs: true }).config.logging.json_format).toBe(true);
    expect(parse(text, {}, { logFile: "b.log" }).config.logging.file).toBe("b.log");
  });

  it("lets MCP_MAX_RESPONSE_BYTES win over execution.max_response_bytes", () => {
    const loaded = parse("execution: {max_response_bytes: 1000}", { MCP_MAX_RESPONSE_BYTES: "2048" });
    expect(loaded.config.execution.max_response_bytes).toBe(2048);
  });

  it("lets MCP_JWT_MAX_TOKEN_LIFETIME win over the top-level and every issuer's lifetime", () => {
    const text = `
auth:
  oidc:
    max_token_lifetime_seconds: 900
    issuers: [{issuer: "https://a.example.com", max_token_lifetime_seconds: 60}]
`;
    const { oidc } = parse(text, { MCP_JWT_MAX_TOKEN_LIFETIME: "0" }).config.auth;
    expect(oidc.max_token_lifetime_seconds).toBe(0);
    expect(oidc.issuers[0]?.max_token_lifetime_seconds).toBe(0);
  });

  it("lets MCP_TRACING_CALLER_IDS and MCP_AUDIT_EXPORT_ENABLED win over observability keys", () => {
    const text = "observability: {tracing: {caller_ids: false}, audit: {enabled: true}}";
    const { observability } = parse(text, {
      MCP_TRACING_CALLER_IDS: "yes",
      MCP_AUDIT_EXPORT_ENABLED: "off",
    }).config;
    expect(observability.tracing.caller_ids).toBe(true);
    expect(observability.audit.enabled).toBe(false);
  });

  it("lets the rate_limit block win over MCP_RATE_LIMIT_RPS and MCP_RATE_LIMIT_BURST", () => {
    const env = { MCP_RATE_LIMIT_RPS: "50", MCP_RATE_LIMIT_BURST: "100" };
    expect(parse("rate_limit: {rps: 3, burst: 6}", env).config.rate_limit).toEqual({ rps: 3, burst: 6 });
  });

  it("uses MCP_RATE_LIMIT_RPS and MCP_RATE_LIMIT_BURST for the keys the rate_limit block leaves out", () => {
    const env = { MCP_RATE_LIMIT_RPS: "50", MCP_RATE_LIMIT_BURST: "100" };
    expect(parse("{}", env).config.rate_limit).toEqual({ rps: 50, burst: 100 });
    expect(parse("rate_limit: {rps: 3}", env).config.rate_limit).toEqual({ rps: 3, burst: 100 });
  });

  it("refuses invalid variables by name, together with the problems of the file", () => {
    const env = {
      MCP_LOG_LEVEL: "LOUD",
      MCP_JSON_LOGS: "perhaps",
      MCP_MAX_RESPONSE_BYTES: "-1",
      MCP_RATE_LIMIT_RPS: "0",
      MCP_CONTAINER_RUNTIME: "lxc",
    };
    const error = refusal(() => parse("execution: {max_concurrency: -1}", env));
    expect(error.issues).toEqual([
      { path: "execution.max_concurrency", message: "must be an integer >= 0", code: "invalid_value" },
      { path: "MCP_CONTAINER_RUNTIME", message: "must be docker or podman", code: "invalid_env" },
      { path: "MCP_LOG_LEVEL", message: "must be one of DEBUG, INFO, WARNING, ERROR", code: "invalid_env" },
      {
        path: "MCP_JSON_LOGS",
        message: "must be a boolean: 1, true, yes, on, 0, false, no or off",
        code: "invalid_env",
      },
      { path: "MCP_MAX_RESPONSE_BYTES", message: "must be a positive integer (bytes)", code: "invalid_env" },
      { path: "MCP_RATE_LIMIT_RPS", message: "must be a number greater than 0", code: "invalid_env" },
    ]);
  });

  it("refuses an invalid --log-level naming the flag", () => {
    const error = refusal(() => parse("{}", {}, { logLevel: "chatty" }));
    expect(error.issues).toEqual([
      { path: "--log-level", message: "must be one of DEBUG, INFO, WARNING, ERROR", code: "invalid_option" },
    ]);
  });
});

describe("the standard OpenTelemetry variables", () => {
  it("are read as the OTel SDK specification says", () => {
    const { otel } = parse("{}", {
      OTEL_SDK_DISABLED: "TRUE",
      OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=prod,team=a%20b",
      OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
      OTEL_TRACES_SAMPLER_ARG: "0.25",
      OTEL_EXPORTER_OTLP_PROTOCOL: "grpc",
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/",
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: "http://metrics:4317",
      OTEL_EXPORTER_OTLP_HEADERS: "api-key=a,x=1",
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: "api-key=b",
      OTEL_EXPORTER_OTLP_TIMEOUT: "2500",
    }).env;
    expect(otel).toMatchObject({
      disabled: true,
      resourceAttributes: { "deployment.environment": "prod", team: "a b" },
      sampler: "parentbased_traceidratio",
      samplerRatio: 0.25,
      traces: {
        protocol: "http/json",
        endpoint: "http://collector:4318/v1/traces",
        headers: { "api-key": "b", x: "1" },
        timeoutMs: 2500,
      },
      metrics: { protocol: "grpc", endpoint: "http://metrics:4317" },
      logs: { protocol: "grpc", endpoint: "http://collector:4318/" },
    });
  });

  it("refuse a protocol or sampler the specification does not name, by variable", () => {
    expect(() => parse("{}", { OTEL_EXPORTER_OTLP_PROTOCOL: "http" })).toThrow(
      /OTEL_EXPORTER_OTLP_PROTOCOL.*http\/protobuf, http\/json, grpc/s,
    );
    expect(() => parse("{}", { OTEL_TRACES_SAMPLER: "sometimes" })).toThrow(/OTEL_TRACES_SAMPLER/);
  });

  it("fill the tracing keys the file leaves unwritten, and only those", () => {
    const env = { OTEL_SDK_DISABLED: "true", OTEL_SERVICE_NAME: "from-env" };
    expect(parse("{}", env).config.observability.tracing).toMatchObject({
      enabled: false,
      service_name: "from-env",
    });
    const written = parse("observability: {tracing: {enabled: true, service_name: file}}", env);
    expect(written.config.observability.tracing).toMatchObject({ enabled: true, service_name: "file" });
    expect(
      parse("{}", { OTEL_RESOURCE_ATTRIBUTES: "service.name=from-resource" }).config.observability.tracing
        .service_name,
    ).toBe("from-resource");
  });
});

describe("environment-only settings", () => {
  it("default to loopback proxies, docker, no compliance export and lenient keys", () => {
    expect(parse("{}").env).toEqual({
      trustedProxies: ["127.0.0.1", "::1"],
      containerRuntime: "docker",
      containerEndpoint: { socketPath: "/var/run/docker.sock" },
      complianceFormat: null,
      complianceOutput: null,
      strict: false,
      childBaseEnv: {},
      variables: {},
      otel: expect.objectContaining({ disabled: false, sampler: "parentbased_always_on" }),
    });
  });

  it("read trusted proxies, the container runtime and the compliance export", () => {
    const env = {
      MCP_TRUSTED_PROXIES: " 10.0.0.1, 192.168.0.0/16 ,fd00::/8",
      MCP_CONTAINER_RUNTIME: "Podman",
      MCP_COMPLIANCE_FORMAT: "  jsonlines ",
      MCP_COMPLIANCE_OUTPUT: "/var/log/siem.log",
    };
    expect(parse("{}", env).env).toEqual({
      trustedProxies: ["10.0.0.1", "192.168.0.0/16", "fd00::/8"],
      containerRuntime: "podman",
      containerEndpoint: { socketPath: "/run/podman/podman.sock" },
      complianceFormat: "json-lines",
      complianceOutput: "/var/log/siem.log",
      strict: false,
      childBaseEnv: {},
      variables: env,
      otel: expect.objectContaining({ disabled: false }),
    });
  });

  it("trust the loopback addresses when MCP_TRUSTED_PROXIES is unset, and no peer when it is empty", () => {
    expect(parse("{}", {}).env.trustedProxies).toEqual(["127.0.0.1", "::1"]);
    expect(parse("{}", { MCP_TRUSTED_PROXIES: "" }).env.trustedProxies).toEqual([]);
    expect(parse("{}", { MCP_TRUSTED_PROXIES: " , " }).env.trustedProxies).toEqual([]);
  });

  it("pass HOME, LOGNAME, PATH, SHELL, TERM and USER on to subprocess servers, as they are, and nothing else", () => {
    const env = {
      HOME: "/home/ada",
      LOGNAME: "ada",
      PATH: "/usr/local/bin:/usr/bin",
      SHELL: "/bin/zsh",
      TERM: "",
      USER: " ada ",
      AWS_SECRET_ACCESS_KEY: "secret",
      MCP_TRUSTED_PROXIES: "10.0.0.1",
    };
    expect(parse("{}", env).env.childBaseEnv).toEqual({
      HOME: "/home/ada",
      LOGNAME: "ada",
      PATH: "/usr/local/bin:/usr/bin",
      SHELL: "/bin/zsh",
      TERM: "",
      USER: " ada ",
    });
  });

  it("leave out of the subprocess base environment a variable holding an exported shell function", () => {
    const env = { PATH: "/usr/bin", SHELL: "() { :; }; echo pwned" };
    expect(parse("{}", env).env.childBaseEnv).toEqual({ PATH: "/usr/bin" });
  });

  it("refuse an unknown compliance format and a malformed trusted proxy", () => {
    const error = refusal(() =>
      parse("{}", { MCP_COMPLIANCE_FORMAT: "xml", MCP_TRUSTED_PROXIES: "10.0.0.1/8,proxy" }),
    );
    expect(error.issues).toEqual([
      {
        path: "MCP_TRUSTED_PROXIES",
        message: "'10.0.0.1/8' has host bits set (the network is 10.0.0.0/8)",
        code: "invalid_env",
      },
      {
        path: "MCP_TRUSTED_PROXIES",
        message: "'proxy' must be an IP address or a CIDR",
        code: "invalid_env",
      },
      {
        path: "MCP_COMPLIANCE_FORMAT",
        message: "must be one of cef, json-lines (or jsonlines), leef, syslog",
        code: "invalid_env",
      },
    ]);
  });

  it("read the docker engine endpoint from DOCKER_HOST, unix or tcp", () => {
    const endpoint = (env: Environment) => parse("{}", env).env.containerEndpoint;
    expect(endpoint({ DOCKER_HOST: "unix:///tmp/engine.sock" })).toEqual({ socketPath: "/tmp/engine.sock" });
    expect(endpoint({ DOCKER_HOST: "tcp://10.0.0.5:2376" })).toEqual({ host: "10.0.0.5", port: 2376 });
    expect(endpoint({ DOCKER_HOST: "tcp://docker.internal" })).toEqual({
      host: "docker.internal",
      port: 2375,
    });
    expect(endpoint({ DOCKER_HOST: "tcp://[::1]:2375" })).toEqual({ host: "::1", port: 2375 });
  });

  it("select Podman's socket: CONTAINER_HOST, then the rootless socket under XDG_RUNTIME_DIR, then the rootful one", () => {
    const endpoint = (env: Environment) =>
      parse("{}", { MCP_CONTAINER_RUNTIME: "podman", ...env }).env.containerEndpoint;
    expect(
      endpoint({
        CONTAINER_HOST: "unix:///run/user/1000/podman/custom.sock",
        XDG_RUNTIME_DIR: "/run/user/1000",
        DOCKER_HOST: "unix:///var/run/docker.sock",
      }),
    ).toEqual({ socketPath: "/run/user/1000/podman/custom.sock" });
    expect(endpoint({ CONTAINER_HOST: "tcp://127.0.0.1:8888" })).toEqual({ host: "127.0.0.1", port: 8888 });
    expect(
      endpoint({ XDG_RUNTIME_DIR: "/run/user/1000/", DOCKER_HOST: "unix:///var/run/docker.sock" }),
    ).toEqual({
      socketPath: "/run/user/1000/podman/podman.sock",
    });
    expect(endpoint({ DOCKER_HOST: "tcp://10.0.0.5:2375" })).toEqual({
      socketPath: "/run/podman/podman.sock",
    });
  });

  it("ignore CONTAINER_HOST and XDG_RUNTIME_DIR when the runtime is docker", () => {
    expect(
      parse("{}", { CONTAINER_HOST: "unix:///run/podman/podman.sock", XDG_RUNTIME_DIR: "/run/user/1000" }).env
        .containerEndpoint,
    ).toEqual({ socketPath: "/var/run/docker.sock" });
  });

  it("refuse an engine address that is neither unix:// nor tcp://, naming the variable", () => {
    const rule = "must be unix:///path/to/socket or tcp://host:port";
    expect(refusal(() => parse("{}", { DOCKER_HOST: "ssh://user@host" })).issues).toEqual([
      { path: "DOCKER_HOST", message: rule, code: "invalid_env" },
    ]);
    expect(refusal(() => parse("{}", { DOCKER_HOST: "unix://relative.sock" })).issues).toEqual([
      { path: "DOCKER_HOST", message: rule, code: "invalid_env" },
    ]);
    expect(
      refusal(() => parse("{}", { MCP_CONTAINER_RUNTIME: "podman", CONTAINER_HOST: "tcp://host:99999" }))
        .issues,
    ).toEqual([{ path: "CONTAINER_HOST", message: rule, code: "invalid_env" }]);
  });

  it("turn strict mode on with GATEWAY_CONFIG_STRICT", () => {
    expect(() => parse("colour: blue", { GATEWAY_CONFIG_STRICT: "true" })).toThrow(ConfigValidationError);
  });
});

describe("the loaded configuration", () => {
  it("is deeply frozen", () => {
    const { config } = parse(`${SERVER}ssrf: {trusted_networks: [10.0.0.0/8]}`);
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.mcp_servers.math)).toBe(true);
    expect(Object.isFrozen(config.ssrf.trusted_networks)).toBe(true);
    expect(() => {
      (config.ssrf.trusted_networks as string[]).push("192.168.0.0/16");
    }).toThrow(TypeError);
    expect(() => {
      (config.logging as { level: string }).level = "DEBUG";
    }).toThrow(TypeError);
  });

  it("reports a YAML syntax error with its line and column", () => {
    const error = refusal(() =>
      parseConfig("mcp_servers:\n  a: [1\n", { env: {}, sourceName: "inline.yaml" }),
    );
    expect(error.issues[0]).toMatchObject({ path: "inline.yaml:3:1", code: "yaml_syntax" });
    expect(error.issues[0]?.message).toMatch(/^YAML syntax error at line 3, column 1: /);
  });

  it("refuses a key written twice in any mapping, block or flow, at the second one's line and column", () => {
    const cases: [string, string[]][] = [
      ["logging:\n  level: INFO\nlogging:\n  level: DEBUG\n", ["3:1"]],
      ["mcp_servers:\n  a:\n    command: [x]\n  b:\n    command: [y]\n  a:\n    command: [z]\n", ["6:3"]],
      ["mcp_servers: {a: {command: [x]}, a: {command: [y]}}\n", ["1:34"]],
      ["mcp_servers:\n  a:\n    command: [x]\n    env_list:\n      - {k: 1, k: 2}\n", ["5:16"]],
      ["a: 1\na: 2\nb: 1\nb: 2\n", ["2:1", "4:1"]],
    ];
    for (const [text, places] of cases) {
      const error = refusal(() => parseConfig(text, { env: {}, sourceName: "c.yaml" }));
      expect(error.issues).toEqual(
        places.map((place) => ({
          path: `c.yaml:${place}`,
          message: `YAML syntax error at line ${place.replace(":", ", column ")}: Map keys must be unique`,
          code: "yaml_syntax",
        })),
      );
    }
  });

  it("lets merge keys repeat, and tells a number key from the same digits quoted", () => {
    const merged = parse(
      "x-defaults: &d {command: [x]}\nx-more: &e {env: {A: b}}\nmcp_servers:\n  a:\n    <<: *d\n    <<: *e\n",
    );
    expect(merged.config.mcp_servers.a).toMatchObject({ command: ["x"], env: { A: "b" } });
    expect(() => parse('mcp_servers:\n  a:\n    command: [x]\n    env: {"1": a, 1: b}\n')).not.toThrow();
  });

  it("reads a file of a thousand servers without a false duplicate", () => {
    const servers = Array.from({ length: 1000 }, (_, i) => `  s${i}:\n    command: [node, s.js]\n`).join("");
    expect(Object.keys(parse(`mcp_servers:\n${servers}`).config.mcp_servers)).toHaveLength(1000);
  });

  it("does not change the caller's data when repairing warnings", () => {
    const text = "mcp_servers:\n  math: {command: [x], volumes: [a]}\n";
    const first = parse(text);
    const second = parse(text);
    expect(first.warnings).toEqual(second.warnings);
    expect(first.warnings).toHaveLength(1);
  });
});
