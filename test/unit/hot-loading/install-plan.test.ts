import { describe, expect, it } from "vitest";
import { planInstall } from "../../../src/app/hot-loading/install-plan.js";
import type { RegistryPackage, RegistryRemote, RegistryServer } from "../../../src/app/ports/mcp-registry.js";

const server = (parts: Partial<RegistryServer>): RegistryServer => ({
  name: "io.github.example/weather",
  description: "Forecasts",
  version: "1.2.0",
  packages: [],
  remotes: [],
  official: { status: "active", isLatest: true },
  ...parts,
});

const npm = (parts: Partial<RegistryPackage> = {}): RegistryPackage => ({
  registryType: "npm",
  identifier: "@example/weather-mcp",
  version: "1.2.0",
  transportType: "stdio",
  environmentVariables: [],
  packageArguments: [],
  ...parts,
});

const remote = (parts: Partial<RegistryRemote> = {}): RegistryRemote => ({
  type: "streamable-http",
  url: "https://weather.example.com/mcp",
  headers: [],
  ...parts,
});

const noEnv = () => undefined;

describe("choosing how to run a registry entry", () => {
  it("runs an npm stdio package with npx -y <identifier>@<version> and its fixed arguments", () => {
    const outcome = planInstall(
      server({
        packages: [
          npm({
            packageArguments: [
              { type: "positional", value: "stdio", isRequired: true },
              { type: "named", name: "--units", default: "metric", isRequired: false },
              { type: "positional", valueHint: "optional_path", isRequired: false },
            ],
          }),
        ],
      }),
      noEnv,
    );
    expect(outcome).toEqual({
      ok: true,
      plan: {
        kind: "npm",
        command: ["npx", "-y", "@example/weather-mcp@1.2.0", "stdio", "--units", "metric"],
        env: {},
        via: "npm:@example/weather-mcp@1.2.0",
      },
      warnings: [],
    });
  });

  it("prefers a remote (no code on the gateway's host), streamable HTTP before SSE", () => {
    const outcome = planInstall(
      server({
        packages: [npm()],
        remotes: [
          remote({ type: "sse", url: "https://weather.example.com/sse" }),
          remote({ headers: [{ name: "X-Client", value: "airlock", isRequired: true, isSecret: false }] }),
        ],
      }),
      noEnv,
    );
    expect(outcome).toMatchObject({
      ok: true,
      plan: {
        kind: "remote",
        endpoint: "https://weather.example.com/mcp",
        transport: "streamable_http",
        headers: { "X-Client": "airlock" },
        via: "remote:streamable-http",
      },
    });
  });

  it("passes over a remote needing a header it cannot supply and falls back to the package", () => {
    const outcome = planInstall(
      server({
        packages: [npm()],
        remotes: [remote({ headers: [{ name: "Authorization", isRequired: true, isSecret: true }] })],
      }),
      noEnv,
    );
    expect(outcome).toMatchObject({ ok: true, plan: { kind: "npm" } });
  });

  it("takes a variable's fixed value first, then the gateway's environment, then its default", () => {
    const env: Record<string, string> = { FIXED: "from-env", FROM_ENV: "secret-value", DEFAULTED: "" };
    const outcome = planInstall(
      server({
        packages: [
          npm({
            environmentVariables: [
              { name: "FIXED", value: "publisher", isRequired: true, isSecret: false },
              { name: "FROM_ENV", isRequired: true, isSecret: true },
              { name: "DEFAULTED", default: "metric", isRequired: false, isSecret: false },
              { name: "OPTIONAL", isRequired: false, isSecret: true },
              { name: "TEMPLATED", value: "{unfilled}", isRequired: false, isSecret: false },
            ],
          }),
        ],
      }),
      (name) => env[name],
    );
    expect(outcome).toMatchObject({
      ok: true,
      plan: { env: { FIXED: "publisher", FROM_ENV: "secret-value", DEFAULTED: "metric" } },
      warnings: ["passed from the gateway's environment: FROM_ENV"],
    });
  });

  it("names every required variable nobody supplies, secret or not", () => {
    const outcome = planInstall(
      server({
        packages: [
          npm({
            environmentVariables: [
              { name: "API_KEY", description: "Key of the service", isRequired: true, isSecret: true },
              { name: "REGION", isRequired: true, isSecret: false },
              { name: "OPTIONAL", isRequired: false, isSecret: true },
            ],
          }),
        ],
      }),
      noEnv,
    );
    expect(outcome).toEqual({
      ok: false,
      kind: "missing",
      via: "npm:@example/weather-mcp@1.2.0",
      missing: [
        { name: "API_KEY", secret: true, description: "Key of the service" },
        { name: "REGION", secret: false },
      ],
    });
  });

  it("says why nothing can run: other package registries, other transports, templated URLs", () => {
    const outcome = planInstall(
      server({
        packages: [
          npm({ registryType: "pypi", identifier: "weather-mcp" }),
          npm({ transportType: "streamable-http" }),
        ],
        remotes: [remote({ url: "https://{tenant}.example.com/mcp" }), remote({ type: "websocket" })],
      }),
      noEnv,
    );
    expect(outcome).toEqual({
      ok: false,
      kind: "unsupported",
      reasons: [
        "the streamable-http remote's URL needs variables that hot loading cannot fill in",
        "remote transport 'websocket' is not supported",
        "pypi package 'weather-mcp' is not supported: only npm packages are run",
        "npm package '@example/weather-mcp' uses transport 'streamable-http': only stdio packages are run",
      ],
    });
  });

  it("refuses a required argument without a value", () => {
    const outcome = planInstall(
      server({
        packages: [npm({ packageArguments: [{ type: "positional", valueHint: "path", isRequired: true }] })],
      }),
      noEnv,
    );
    expect(outcome).toEqual({
      ok: false,
      kind: "unsupported",
      reasons: ["npm package '@example/weather-mcp' needs argument 'path', which hot loading cannot supply"],
    });
  });

  it("warns that a package without a version runs whatever is latest", () => {
    const { version: _unpinned, ...unpinned } = npm();
    const outcome = planInstall(server({ packages: [unpinned] }), noEnv);
    expect(outcome).toMatchObject({
      ok: true,
      plan: { command: ["npx", "-y", "@example/weather-mcp"] },
      warnings: [expect.stringContaining("names no version")],
    });
  });

  it("reports an entry with nothing to run", () => {
    expect(planInstall(server({}), noEnv)).toEqual({
      ok: false,
      kind: "unsupported",
      reasons: ["the registry entry lists no package and no remote"],
    });
  });
});
