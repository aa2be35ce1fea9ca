import type { GroupService } from "../app/groups/group-service.js";
import { HeaderExposure } from "../app/headers/header-exposure.js";
import type { Logger } from "../app/ports/logger.js";
import type { GatewayConfig } from "../config/schema.js";
import { isGroupEntry } from "../config/schema.js";
import { exposureVerdict, type HeaderExposureBlock } from "../domain/policy/header-exposure.js";

/** Reads the `header_exposure` blocks of servers, groups and inline members (read at start). */
export function createHeaderExposure(
  config: GatewayConfig,
  deps: { groups: Pick<GroupService, "groupsOf" | "has">; logger: Logger },
): HeaderExposure {
  return new HeaderExposure(deps, exposureBlocks(config));
}

/** Every declared `header_exposure` block, by the id of the server or group that declares it. */
export function exposureBlocks(config: GatewayConfig): Map<string, HeaderExposureBlock> {
  const blocks = new Map<string, HeaderExposureBlock>();
  for (const [id, entry] of Object.entries(config.mcp_servers)) {
    if (entry.header_exposure) blocks.set(id, entry.header_exposure);
    if (!isGroupEntry(entry)) continue;
    for (const member of entry.members) {
      if (member.kind === "inline" && member.server.header_exposure)
        blocks.set(member.id, member.server.header_exposure);
    }
  }
  return blocks;
}

/**
 * Refuses the start (throws, naming the server, tool and rule) when a tool declared in the file
 * breaks a block whose `on_violation` is `refuse_boot`. Tools learned from a running server later
 * are withheld instead (`app/headers/header-exposure.ts`): the gateway is already serving then.
 */
export function refuseDeclaredExposure(config: GatewayConfig): void {
  const blocks = exposureBlocks(config);
  const groupsOf = new Map<string, string[]>();
  const servers: [string, unknown][] = [];
  for (const [id, entry] of Object.entries(config.mcp_servers)) {
    if (!isGroupEntry(entry)) {
      servers.push([id, entry.tools]);
      continue;
    }
    for (const member of entry.members) {
      groupsOf.set(member.id, [...(groupsOf.get(member.id) ?? []), id]);
      if (member.kind === "inline") servers.push([member.id, member.server.tools]);
    }
  }
  for (const [id, tools] of servers) {
    if (!Array.isArray(tools)) continue;
    const governing = [id, ...(groupsOf.get(id) ?? [])].flatMap((owner) => blocks.get(owner) ?? []);
    if (governing.length === 0) continue;
    for (const tool of tools as { name: string; inputSchema?: unknown }[]) {
      const verdict = exposureVerdict(tool.inputSchema, governing);
      if (verdict.kind === "denied" && verdict.action === "refuse_boot") {
        throw new Error(
          `mcp_servers.${id}.tools: tool '${tool.name}' exposes property '${verdict.path}' as header ` +
            `Mcp-Param-${verdict.header}, which header_exposure.deny_annotated '${verdict.pattern}' denies ` +
            "with on_violation: refuse_boot",
        );
      }
    }
  }
}
