import { matchesAny } from "../../domain/policy/fnmatch.js";
import type { ServerSpec } from "../../domain/server/server-spec.js";
import type { Logger } from "../ports/logger.js";
import type { ManagedServer } from "./managed-server.js";

/** What a server's `capabilities` holds it to at runtime (docs/configuration.md "capabilities"). */
export type CapabilityKind = "tools" | "environment variables" | "resources";

/** The names of `kind` a server's contract does not declare; nothing when it declares nothing of it. */
export function undeclared(spec: ServerSpec, kind: CapabilityKind, names: readonly string[]): string[] {
  const declared = declaredPatterns(spec, kind);
  return declared ? names.filter((name) => !matchesAny(name, declared)) : [];
}

function declaredPatterns(spec: ServerSpec, kind: CapabilityKind): readonly string[] | undefined {
  const contract = spec.capabilities;
  if (kind === "tools") return contract?.tools;
  // A declared URI template (`notes://{id}`) stands for every URI it expands to.
  if (kind === "resources") return contract?.resources?.map((pattern) => pattern.replace(/\{[^}]*\}/g, "*"));
  return contract?.environment?.variables;
}

/**
 * Reports what a server does outside its declared contract (its log lines and the gateway's log:
 * INFO under `audit`, WARN otherwise) and answers whether the contract's `enforcement_mode` is
 * `block`, which the caller enforces as the kind requires.
 */
export function reportUndeclared(
  server: ManagedServer,
  logger: Logger,
  kind: CapabilityKind,
  names: readonly string[],
): boolean {
  const mode = server.spec.capabilities?.enforcement_mode ?? "block";
  const key = `undeclared_${kind.replace(" ", "_")}`;
  const fields = { mcp_server_id: server.id, [key]: names, enforcement_mode: mode };
  server.logs.append("stderr", `[airlock] undeclared ${kind} (${mode}): ${names.join(", ")}`);
  const message = `MCP server ${kind === "environment variables" ? "is given" : "exposes"} undeclared ${kind}`;
  if (mode === "audit") logger.info(fields, message);
  else logger.warn(fields, message);
  return mode === "block";
}
