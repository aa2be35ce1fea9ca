import { z } from "zod";
import { validationError } from "../../domain/errors.js";
import { SERVER_ID_CHARS, SERVER_ID_PATTERN } from "../../domain/server/server-id.js";
import { SERVER_DEFAULTS, type ServerMode, type ServerSpec } from "../../domain/server/server-spec.js";
import { defineOperation } from "../operation.js";
import { zodValidation } from "../validation.js";
import { missingFields, refuseMissing } from "./missing-fields.js";

/** Modes a REST registration may use; groups come from the configuration file or `/groups`. */
export const REGISTRABLE_MODES = ["subprocess", "docker", "remote"] as const;

/** What each mode needs to run (spec 1 §2 "Registration fields"). */
export const REQUIRED_BY_MODE: Record<ServerMode, "command" | "image" | "endpoint"> = {
  subprocess: "command",
  docker: "image",
  remote: "endpoint",
};

/**
 * Spec 2 §5: "A registering operator needs mcp_servers:write, mcp_servers:lifecycle and
 * policy:write, which only admin holds". A registration decides what runs on the gateway's host
 * (a command, an image, an endpoint), and so does changing a server's environment.
 */
export const REGISTERING_PERMISSIONS = [
  "mcp_servers:write",
  "mcp_servers:lifecycle",
  "policy:write",
] as const;

export const idleTtl = z.number().int().min(1).max(86_400);
export const healthInterval = z.number().int().min(5).max(3600);
export const envMap = z.record(z.string(), z.string());
/** What a subprocess server runs: the program, then its arguments. */
export const serverCommand = z.array(z.string().min(1)).min(1);

const registration = z.strictObject({
  mcp_server_id: z.string().regex(SERVER_ID_PATTERN, SERVER_ID_CHARS),
  mode: z.enum(REGISTRABLE_MODES),
  command: serverCommand.optional(),
  image: z.string().min(1).optional(),
  endpoint: z.string().min(1).optional(),
  env: envMap.default({}),
  idle_ttl_s: idleTtl.default(SERVER_DEFAULTS.idle_ttl_s),
  health_check_interval_s: healthInterval.default(SERVER_DEFAULTS.health_check_interval_s),
  description: z.string().optional(),
  // Accepted and dropped: only the configuration file honours container options (spec 1 §2);
  // still of the type the spec gives them, so a malformed value is refused rather than ignored.
  volumes: z.array(z.string()).optional(),
  network: z.string().optional(),
  read_only: z.boolean().optional(),
  // Accepted and ignored whatever its value: the provenance of a REST registration is `api` (spec 1 §2).
  source: z.unknown().optional(),
});

export const registerServer = defineOperation({
  name: "register-server",
  kind: "command",
  summary: "Register an MCP server (cold, not started). Its provenance is always `api`.",
  permissions: REGISTERING_PERMISSIONS,
  // The body is checked in `run`, missing fields first (400 `missing_fields`, spec 1 §4 rule 1), then
  // against the registration fields: any other field, or a value of the wrong type, is refused (422).
  input: z.record(z.string(), z.unknown()),
  async run({ fleet, groups, endpointGuard, repositories, clock }, body) {
    const mode = body.mode as ServerMode | undefined;
    const needed =
      typeof mode === "string" && Object.hasOwn(REQUIRED_BY_MODE, mode) ? REQUIRED_BY_MODE[mode] : undefined;
    refuseMissing(missingFields(body, ["mcp_server_id", "mode", ...(needed ? [needed] : [])]));
    const parsed = registration.safeParse(body);
    if (!parsed.success) throw zodValidation(parsed.error);
    const reg = parsed.data;
    // Servers and groups share one namespace: `/mcp_servers/{id}` and `gateway_start` name either.
    const refuseDuplicate = () => {
      if (fleet.has(reg.mcp_server_id) || groups.has(reg.mcp_server_id)) {
        throw validationError(`McpServer already exists: ${reg.mcp_server_id}`, { field: "mcp_server_id" });
      }
    };
    refuseDuplicate();
    // Spec 1 §4 rule 2: an endpoint registered here may not reach private or link-local addresses.
    if (reg.endpoint) await endpointGuard.assertAllowed(reg.endpoint);
    refuseDuplicate();
    const spec: ServerSpec = {
      id: reg.mcp_server_id,
      mode: reg.mode,
      ...(reg.command && { command: reg.command }),
      ...(reg.image && { image: reg.image }),
      ...(reg.endpoint && { endpoint: reg.endpoint }),
      env: reg.env,
      idle_ttl_s: reg.idle_ttl_s,
      health_check_interval_s: reg.health_check_interval_s,
      max_consecutive_failures: SERVER_DEFAULTS.max_consecutive_failures,
      ...(reg.description !== undefined && { description: reg.description }),
      source: "api",
    };
    await fleet.exclusive(spec.id, async () => {
      refuseDuplicate();
      if (await repositories.serverConfigs.get(spec.id)) {
        throw validationError(`McpServer already exists: ${spec.id}`, { field: "mcp_server_id" });
      }
      // Saved first: a registration the store refused changes nothing.
      await repositories.serverConfigs.save(spec, clock.now() / 1000);
      fleet.register(spec);
    });
    return { mcp_server_id: spec.id, created: true };
  },
});
