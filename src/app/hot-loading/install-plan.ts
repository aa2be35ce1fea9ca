import type {
  RegistryArgument,
  RegistryInput,
  RegistryPackage,
  RegistryRemote,
  RegistryServer,
} from "../ports/mcp-registry.js";

/** How a registry entry will run in the fleet. */
export type InstallPlan =
  | {
      readonly kind: "remote";
      readonly endpoint: string;
      readonly transport: "streamable_http" | "sse";
      /** Headers with values fixed by the publisher. */
      readonly headers: Readonly<Record<string, string>>;
      /** What was chosen, for messages and `source`: `remote:streamable-http`. */
      readonly via: string;
    }
  | {
      readonly kind: "npm";
      /** `npx -y <identifier>@<version> <package arguments>`. */
      readonly command: readonly string[];
      /** The declared environment variables the gateway can supply (values may be secrets). */
      readonly env: Readonly<Record<string, string>>;
      /** `npm:<identifier>@<version>`. */
      readonly via: string;
    };

/** A required environment variable the gateway cannot supply. */
export interface MissingVariable {
  readonly name: string;
  readonly secret: boolean;
  readonly description?: string;
}

export type PlanOutcome =
  | { readonly ok: true; readonly plan: InstallPlan; readonly warnings: readonly string[] }
  | {
      readonly ok: false;
      readonly kind: "missing";
      readonly missing: readonly MissingVariable[];
      readonly via: string;
    }
  | { readonly ok: false; readonly kind: "unsupported"; readonly reasons: readonly string[] };

/** Reads one variable of the gateway's environment; undefined when unset. */
export type EnvironmentReader = (name: string) => string | undefined;

/** A POSIX environment variable name; anything else could not be set on the child. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Values with `{placeholders}` need inputs only a person can give; they are never used as they are. */
const PLACEHOLDER = /\{[^}]*\}/;

const REMOTE_TRANSPORTS: Record<string, "streamable_http" | "sse"> = {
  "streamable-http": "streamable_http",
  sse: "sse",
};

/**
 * Chooses how to run `server`, in this order: its remotes (streamable HTTP before SSE), which run
 * no code on the gateway's host, then its npm packages over stdio. The first candidate the gateway
 * can satisfy wins. When none can and an npm package lacks only required environment variables,
 * the outcome names them (`missing`); otherwise it lists why each candidate was passed over.
 *
 * Environment variables of a package take, in order: the publisher's fixed `value` (the registry
 * says end users may not change it), the gateway's environment, the declared `default`. A required
 * variable none of them supplies is missing, secret or not.
 */
export function planInstall(server: RegistryServer, readEnv: EnvironmentReader): PlanOutcome {
  const reasons: string[] = [];
  const remotes = [...server.remotes].sort((a, b) => remoteRank(a) - remoteRank(b));
  for (const remote of remotes) {
    const outcome = planRemote(remote);
    if (typeof outcome === "string") reasons.push(outcome);
    else return { ok: true, plan: outcome, warnings: [] };
  }
  let firstMissing: { missing: MissingVariable[]; via: string } | null = null;
  for (const pkg of server.packages) {
    const outcome = planPackage(pkg, readEnv);
    if (typeof outcome === "string") reasons.push(outcome);
    else if ("missing" in outcome) firstMissing ??= outcome;
    else return { ok: true, plan: outcome.plan, warnings: outcome.warnings };
  }
  if (firstMissing !== null) return { ok: false, kind: "missing", ...firstMissing };
  if (reasons.length === 0) reasons.push("the registry entry lists no package and no remote");
  return { ok: false, kind: "unsupported", reasons };
}

function remoteRank(remote: RegistryRemote): number {
  return remote.type === "streamable-http" ? 0 : remote.type === "sse" ? 1 : 2;
}

function literal(value: string | undefined): string | undefined {
  return value !== undefined && !PLACEHOLDER.test(value) ? value : undefined;
}

function planRemote(remote: RegistryRemote): InstallPlan | string {
  const transport = REMOTE_TRANSPORTS[remote.type];
  if (transport === undefined) return `remote transport '${remote.type}' is not supported`;
  if (PLACEHOLDER.test(remote.url)) {
    return `the ${remote.type} remote's URL needs variables that hot loading cannot fill in`;
  }
  let url: URL;
  try {
    url = new URL(remote.url);
  } catch {
    return `the ${remote.type} remote's URL is not a valid URL`;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return `the ${remote.type} remote's URL is not http or https`;
  }
  const headers: Record<string, string> = {};
  for (const header of remote.headers) {
    const value = literal(header.value);
    if (value !== undefined) headers[header.name] = value;
    else if (header.isRequired) {
      return `the ${remote.type} remote needs header '${header.name}', which hot loading cannot supply`;
    }
  }
  return { kind: "remote", endpoint: url.href, transport, headers, via: `remote:${remote.type}` };
}

type PackagePlan =
  | { plan: InstallPlan; warnings: string[] }
  | { missing: MissingVariable[]; via: string }
  | string;

function planPackage(pkg: RegistryPackage, readEnv: EnvironmentReader): PackagePlan {
  const label = `${pkg.registryType} package '${pkg.identifier}'`;
  if (pkg.registryType !== "npm") return `${label} is not supported: only npm packages are run`;
  if (pkg.transportType !== "stdio") {
    return `${label} uses transport '${pkg.transportType}': only stdio packages are run`;
  }
  const spec = pkg.version === undefined ? pkg.identifier : `${pkg.identifier}@${pkg.version}`;
  const via = `npm:${spec}`;
  const args: string[] = [];
  for (const argument of pkg.packageArguments) {
    const rendered = renderArgument(argument);
    if (rendered === null) {
      return `${label} needs argument '${argument.name ?? argument.valueHint ?? "?"}', which hot loading cannot supply`;
    }
    args.push(...rendered);
  }
  const env: Record<string, string> = {};
  const missing: MissingVariable[] = [];
  const fromGateway: string[] = [];
  for (const variable of pkg.environmentVariables) {
    if (!ENV_NAME.test(variable.name)) {
      if (variable.isRequired)
        return `${label} needs environment variable '${variable.name}', which is not a valid name`;
      continue;
    }
    const found = variableValue(variable, readEnv);
    if (found === undefined) {
      if (variable.isRequired) missing.push(missingView(variable));
      continue;
    }
    env[variable.name] = found.value;
    if (found.fromGateway) fromGateway.push(variable.name);
  }
  if (missing.length > 0) return { missing, via };
  const warnings: string[] = [];
  if (pkg.version === undefined) {
    warnings.push(`${label} names no version: npx runs whatever version is latest when the server starts`);
  }
  if (fromGateway.length > 0) {
    // The package's code reads these: say which of the gateway's variables it was given.
    warnings.push(`passed from the gateway's environment: ${fromGateway.join(", ")}`);
  }
  return { plan: { kind: "npm", command: ["npx", "-y", spec, ...args], env, via }, warnings };
}

/** The argv items of one argument; null for a required one without a usable value; [] to skip. */
function renderArgument(argument: RegistryArgument): string[] | null {
  const value = literal(argument.value) ?? literal(argument.default);
  if (argument.type === "positional") {
    if (value !== undefined) return [value];
    return argument.isRequired ? null : [];
  }
  if (argument.name === undefined) return argument.isRequired ? null : [];
  if (value !== undefined) return [argument.name, value];
  return argument.isRequired ? null : [];
}

function variableValue(
  variable: RegistryInput,
  readEnv: EnvironmentReader,
): { value: string; fromGateway: boolean } | undefined {
  const fixed = literal(variable.value);
  if (fixed !== undefined) return { value: fixed, fromGateway: false };
  const fromEnv = readEnv(variable.name);
  if (fromEnv !== undefined && fromEnv !== "") return { value: fromEnv, fromGateway: true };
  const fallback = literal(variable.default);
  return fallback === undefined ? undefined : { value: fallback, fromGateway: false };
}

function missingView(variable: RegistryInput): MissingVariable {
  return {
    name: variable.name,
    secret: variable.isSecret,
    ...(variable.description !== undefined && { description: variable.description }),
  };
}
