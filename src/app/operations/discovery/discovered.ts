import { z } from "zod";
import { defineOperation } from "../../operation.js";
import { requireDiscovery } from "./discovery-access.js";

/** `gateway_discovered`: servers waiting in pending (spec 2 §4 shape); empty with discovery off. */
export const discovered = defineOperation({
  name: "discovered",
  kind: "query",
  summary: "Servers found by discovery and waiting in pending (auto_register false).",
  permissions: ["discovery:read"],
  leaderOnly: true,
  input: z.strictObject({}),
  async run(services) {
    return { pending: requireDiscovery(services).pendingForTool() };
  },
});

/** `GET /discovery/pending`: the pending entries of spec 1, with their remaining TTL. */
export const listPending = defineOperation({
  name: "list-pending-discovered",
  kind: "query",
  summary: "Discovered servers waiting in pending, with their source, fingerprint and remaining TTL.",
  permissions: ["discovery:read"],
  leaderOnly: true,
  input: z.strictObject({}),
  async run(services) {
    return { pending: requireDiscovery(services).pending() };
  },
});
