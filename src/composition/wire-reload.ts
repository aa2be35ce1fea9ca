import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { FileConfigFiles } from "../adapters/system/file-config-files.js";
import type { AppServices } from "../app/services.js";
import { type EnvSettings, resolveEnvConfigPath } from "../config/load.js";
import type { GatewayConfig } from "../config/schema.js";
import { ConfigFileWatch } from "./config-watch.js";
import type { FrontDoor } from "./front-door.js";
import type { OpenedFleet } from "./open-fleet.js";
import type { OpenedPolicies } from "./open-policies.js";
import { FileConfigReloader } from "./reload.js";

/** Where the gateway's configuration came from (the reload options of `GatewayOptions`). */
export interface ConfigSource {
  /** The file the process was started with; absent: no reload. */
  configPath?: string;
  /** The file as written, before defaults, as the loader read it; read again when the key is absent. */
  configRaw?: unknown;
  /** The file backup and diff act on; by default `MCP_CONFIG`, else `./config.yaml`. */
  configFilesPath?: string;
  /** The environment the reloaded file is validated against. */
  environment?: Readonly<Record<string, string | undefined>>;
}

/** Reload of the configuration file, when the gateway was started from one. */
export interface ReloadWiring {
  readonly reloader: FileConfigReloader | null;
  /** `config_reload`'s file watch; started with the background work. */
  readonly watch: ConfigFileWatch | null;
}

/**
 * The reloader of `source.configPath` and its file watch, and the reload parts of `services`
 * (`reloader`, `runningConfig`, `configFiles`), set here. Nothing when the gateway was not started
 * from a file. Nothing is opened until the watch starts.
 */
export function wireReload(
  config: GatewayConfig,
  source: ConfigSource,
  deps: {
    env: EnvSettings;
    services: AppServices;
    fleet: OpenedFleet;
    policies: OpenedPolicies;
    declared: Set<string>;
    /** Built after the reloader; read at each reload. */
    frontDoor: () => FrontDoor | null;
  },
): ReloadWiring {
  const path = source.configPath;
  if (!path) return { reloader: null, watch: null };
  const { services, fleet, policies } = deps;
  const reloader = new FileConfigReloader({
    path,
    current: { config, raw: "configRaw" in source ? source.configRaw : readRawConfig(path) },
    fleet: fleet.fleet,
    invoker: fleet.invoker,
    groups: fleet.groups,
    governance: policies.governance,
    pins: policies.pinning.pins,
    headerExposure: policies.headerExposure,
    frontDoor: deps.frontDoor,
    settings: services.settings,
    declared: deps.declared,
    bus: services.bus,
    clock: services.clock,
    logger: services.logger,
    ...(source.environment && { env: source.environment }),
  });
  services.reloader = reloader;
  services.runningConfig = reloader;
  services.configFiles = new FileConfigFiles(
    source.configFilesPath ?? resolveEnvConfigPath({ env: deps.env.variables }),
  );
  return { reloader, watch: ConfigFileWatch.create(path, config, reloader, services.logger) };
}

/** The configuration file as written (before defaults), for the reload diff's explicit-null rule. */
function readRawConfig(path: string): unknown {
  try {
    return parseYaml(readFileSync(path, "utf8"), { merge: true });
  } catch {
    // Read a moment ago by the loader; if it cannot be read now, explicit nulls are not told apart.
    return undefined;
  }
}
