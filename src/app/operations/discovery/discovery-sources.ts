import { z } from "zod";
import { discoveryMode } from "../../discovery/discovery-service.js";
import { defineOperation } from "../../operation.js";
import { zodValidation } from "../../validation.js";
import { missingFields, refuseMissing } from "../missing-fields.js";
import { requireDiscovery } from "./discovery-access.js";

/** `gateway_sources` and `GET /discovery/sources`: configured sources with their health. */
export const discoverySources = defineOperation({
  name: "discovery-sources",
  kind: "query",
  summary: "Configured discovery sources with their mode, health and last discovery.",
  permissions: ["discovery:read"],
  leaderOnly: true,
  input: z.strictObject({}),
  async run(services) {
    return { sources: requireDiscovery(services).sources() };
  },
});

const sourceRef = z.strictObject({ source_id: z.string().min(1) });
const config = z.record(z.string(), z.unknown());

/** The registration body past its 400 checks: any field but these four is refused (422). */
const registration = z.strictObject({
  source_type: z.unknown(),
  mode: z.unknown(),
  enabled: z.boolean().default(true),
  config: config.default({}),
});

/**
 * `POST /discovery/sources` (preview). The source is kept for the per-source routes but the cycle
 * does not run it and the listing does not show it (spec 1 "Discovery": sources come from the
 * configuration file).
 */
export const registerDiscoverySource = defineOperation({
  name: "register-discovery-source",
  kind: "command",
  summary: "Register a discovery source (preview): answered by the per-source routes, never run.",
  permissions: ["discovery:approve"],
  leaderOnly: true,
  // Checked field by field so that absent fields answer 400 `missing_fields` and a bad mode 400 `invalid_mode`.
  input: z.record(z.string(), z.unknown()),
  async run(services, body) {
    refuseMissing(missingFields(body, ["source_type", "mode"]));
    // The mode rule answers first: spec 1 gives a bad mode 400 `invalid_mode`, whatever else is wrong.
    discoveryMode(body.mode);
    const rest = registration.safeParse(body);
    if (!rest.success) throw zodValidation(rest.error);
    return requireDiscovery(services).registerSource({
      source_type: body.source_type,
      mode: body.mode,
      enabled: rest.data.enabled,
      config: rest.data.config,
    });
  },
});

/** `PUT /discovery/sources/{id}` (preview): `mode`, `enabled`, `config`, each optional. */
export const updateDiscoverySource = defineOperation({
  name: "update-discovery-source",
  kind: "command",
  summary: "Change a discovery source's mode, enabled flag or config (preview).",
  permissions: ["discovery:approve"],
  leaderOnly: true,
  input: sourceRef.extend({
    mode: z.unknown().optional(),
    enabled: z.boolean().optional(),
    config: config.optional(),
  }),
  async run(services, { source_id, mode, enabled, config }) {
    return requireDiscovery(services).updateSource(source_id, {
      ...(mode !== undefined && { mode }),
      ...(enabled !== undefined && { enabled }),
      ...(config !== undefined && { config }),
    });
  },
});

/** `DELETE /discovery/sources/{id}` (preview): servers it registered stay registered. */
export const deleteDiscoverySource = defineOperation({
  name: "delete-discovery-source",
  kind: "command",
  summary: "Remove a discovery source (preview); the servers it registered stay.",
  permissions: ["discovery:approve"],
  leaderOnly: true,
  input: sourceRef,
  async run(services, { source_id }) {
    return requireDiscovery(services).deleteSource(source_id);
  },
});

/** `POST /discovery/sources/{id}/scan` (preview): one cycle of that source, now. */
export const scanDiscoverySource = defineOperation({
  name: "scan-discovery-source",
  kind: "command",
  summary: "Scan one discovery source now (preview); only an enabled configured source is scanned.",
  permissions: ["discovery:trigger"],
  leaderOnly: true,
  input: sourceRef,
  async run(services, { source_id }) {
    return requireDiscovery(services).scanSource(source_id);
  },
});

/** `PUT /discovery/sources/{id}/enable` (preview): a disabled source is skipped by the cycle. */
export const enableDiscoverySource = defineOperation({
  name: "enable-discovery-source",
  kind: "command",
  summary: "Enable or disable a discovery source (preview).",
  permissions: ["discovery:approve"],
  leaderOnly: true,
  input: sourceRef.extend({ enabled: z.boolean({ error: "enabled must be a boolean" }) }),
  async run(services, { source_id, enabled }) {
    return requireDiscovery(services).setEnabled(source_id, enabled);
  },
});
