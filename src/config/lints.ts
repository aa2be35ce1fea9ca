/**
 * Findings that need the raw document or the finished configuration rather than one field:
 * keys that are read yet flagged as unknown (spec: `network_mode` and `user` on a server, channel
 * settings under `approvals`), and advisories that do not refuse anything.
 */
import { formatPath } from "./issues.js";
import { APPROVALS_KEYS } from "./schema/policy-sections.js";
import { isPlainObject } from "./schema/primitives.js";
import { normalizeMode } from "./schema/servers.js";
import type { GatewayConfig } from "./schema.js";

/**
 * A finding. For `unknown_config_key` findings the message is the detail only: the validator words
 * it as a warning or, in strict mode, as a refusal.
 */
export interface Finding {
  readonly path: string;
  readonly message: string;
  readonly code: string;
}

/** Why each read-but-flagged server key is still looked at, by mode. */
const FLAGGED_DETAILS: Readonly<Record<string, { docker: string; other: string }>> = {
  network_mode: {
    docker: "read as network; network wins when both are set",
    other: "only docker servers read it; ignored here",
  },
  user: {
    docker: "read as the container user; 'current' maps to the host uid:gid",
    other: "only docker servers read it; ignored here",
  },
};

function flagServerKeys(
  entry: Record<string, unknown>,
  path: readonly PropertyKey[],
  findings: Finding[],
): void {
  const isDocker = normalizeMode(entry.mode) === "docker";
  for (const [key, details] of Object.entries(FLAGGED_DETAILS)) {
    if (!(key in entry)) continue;
    findings.push({
      path: formatPath([...path, key]),
      message: isDocker ? details.docker : details.other,
      code: "unknown_config_key",
    });
  }
}

/** Findings on the raw document; they do not depend on the document being valid. */
export function lintRaw(raw: unknown): Finding[] {
  const findings: Finding[] = [];
  if (!isPlainObject(raw)) return findings;
  const servers = isPlainObject(raw.mcp_servers) ? raw.mcp_servers : {};
  for (const [id, entry] of Object.entries(servers)) {
    if (!isPlainObject(entry)) continue;
    if (entry.mode !== "group") {
      flagServerKeys(entry, ["mcp_servers", id], findings);
      continue;
    }
    if (!Array.isArray(entry.members)) continue;
    entry.members.forEach((member, index) => {
      // A member naming a declared server is a reference: its other keys are ignored, not read.
      if (isPlainObject(member) && !(typeof member.id === "string" && member.id in servers)) {
        flagServerKeys(member, ["mcp_servers", id, "members", index], findings);
      }
    });
  }
  if (isPlainObject(raw.approvals)) {
    for (const key of Object.keys(raw.approvals)) {
      if (APPROVALS_KEYS.has(key)) continue;
      findings.push({
        path: formatPath(["approvals", key]),
        message: `kept as the settings of a delivery adapter named '${key}'`,
        code: "unknown_config_key",
      });
    }
  }
  return findings;
}

/** Advisories on a valid configuration. */
export function lintConfig(config: GatewayConfig): Finding[] {
  const findings: Finding[] = [];
  const oidc = config.auth.oidc;
  if (!oidc.enabled) return findings;
  const insecure = (issuer: string) => !issuer.startsWith("https://");
  const message = "is not an https:// URL; tokens naming it are accepted, with keys fetched from jwks_uri";
  if (
    oidc.issuers.length === 0 &&
    oidc.issuer !== undefined &&
    oidc.jwks_uri !== undefined &&
    insecure(oidc.issuer)
  ) {
    findings.push({ path: "auth.oidc.issuer", message, code: "insecure_oidc_issuer" });
  }
  oidc.issuers.forEach((entry, index) => {
    if (entry.jwks_uri !== undefined && insecure(entry.issuer)) {
      findings.push({
        path: formatPath(["auth", "oidc", "issuers", index, "issuer"]),
        message,
        code: "insecure_oidc_issuer",
      });
    }
  });
  return findings;
}
