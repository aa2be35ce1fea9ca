#!/usr/bin/env node
import { Command, Option } from "commander";
import { VERSION } from "./composition/version.js";

// Each command imports what it runs when it runs: `--help`, `version` and `config check` start
// without loading the gateway.

const program = new Command();
program
  .name("airlock")
  .description("Airlock: the MCP gateway in front of a fleet of MCP servers")
  .option(
    "-c, --config <file>",
    "configuration file (default: $MCP_CONFIG, ./config.yaml, ~/.config/airlock/config.yaml)",
  )
  // `airlock --version` and `-V`, as `airlock version`.
  .version(`airlock ${VERSION}`, "-V, --version", "print the version")
  .showHelpAfterError();

program
  .command("serve")
  .description(
    "serve REST, the MCP endpoint and WebSockets over HTTP (default), or the MCP tool surface over stdio",
  )
  .option("-c, --config <file>", "configuration file")
  .addOption(new Option("--http", "serve over HTTP (default)").conflicts("stdio"))
  .addOption(new Option("--stdio", "serve the MCP tool surface on stdin/stdout").conflicts("http"))
  .option("--host <host>", "address to listen on", "127.0.0.1")
  .option("--port <port>", "port to listen on", "8080")
  .option("--log-level <level>", "log level: DEBUG, INFO, WARNING or ERROR (any case)")
  .option("--log-file <file>", "append logs to this file")
  .option("--json-logs", "write logs as JSON lines")
  .action(async (options) => {
    const globals = program.opts<{ config?: string }>();
    // A SIGTERM or SIGINT that arrives while the gateway's code loads is kept, not left to kill the
    // process: the gateway starts, then shuts down in order at once.
    const early: NodeJS.Signals[] = [];
    const keep = (signal: NodeJS.Signals) => early.push(signal);
    for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, keep);
    const { runServe } = await import("./composition/serve.js");
    // `runServe` installs its own handlers before its first await; only then is `keep` removed, so
    // that a signal caught meanwhile always finds a listener.
    const serving = runServe({
      earlySignals: early,
      configPath: options.config ?? globals.config,
      transport: options.stdio ? "stdio" : "http",
      host: options.host,
      port: options.port,
      logLevel: options.logLevel,
      logFile: options.logFile,
      jsonLogs: options.jsonLogs,
    });
    for (const signal of ["SIGTERM", "SIGINT"] as const) process.off(signal, keep);
    const code = await serving;
    // Exit explicitly: an open stdin (stdio mode) or a lingering socket must not keep the process up.
    process.exit(code);
  });

const config = program.command("config").description("work with the configuration file");
config
  .command("check")
  .description(
    "validate the configuration file strictly (unknown keys are errors); exit 0 when valid, 1 when invalid, 2 when the file cannot be read",
  )
  .option("-c, --config <file>", "configuration file")
  .addOption(
    new Option("--format <format>", "text (problems on stderr) or json (one report on stdout)")
      .choices(["text", "json"])
      .default("text"),
  )
  .action(async (options) => {
    const globals = program.opts<{ config?: string }>();
    const { runConfigCheck } = await import("./composition/config-check.js");
    process.exitCode = runConfigCheck(options.config ?? globals.config, options.format);
  });

config
  .command("schema")
  .description("print the JSON Schema (draft-07) of the configuration file, for editors and validators")
  .option(
    "--allow-references",
    "also accept a reference to an environment variable for any scalar (the Helm chart's template)",
  )
  .action(async (options) => {
    const { runConfigSchema } = await import("./composition/config-schema.js");
    process.exitCode = runConfigSchema({ references: options.allowReferences === true });
  });

const auth = program.command("auth").description("manage authentication");
auth
  .command("bootstrap-admin")
  .description(
    "claim the first admin (once): create a principal's API key and its global admin role in durable storage",
  )
  .option("-c, --config <file>", "configuration file")
  .option("--principal <id>", "principal that becomes admin", "admin")
  .option("--key-name <name>", "name of the API key created for it", "bootstrap-admin")
  .option("--show-key", "create the API key and print it once on stdout (required when OIDC is off)")
  .action(async (options) => {
    const globals = program.opts<{ config?: string }>();
    const { runBootstrapAdmin } = await import("./composition/bootstrap-admin.js");
    process.exitCode = await runBootstrapAdmin({
      configPath: options.config ?? globals.config,
      principal: options.principal,
      keyName: options.keyName,
      showKey: options.showKey === true,
    });
  });

program
  .command("version")
  .description("print the version")
  .action(() => {
    process.stdout.write(`airlock ${VERSION}\n`);
  });

await program.parseAsync(process.argv);
