import type { DomainEvent } from "../../domain/events.js";
import type { EventBus } from "../event-bus.js";
import type { Fleet } from "../fleet/fleet.js";
import type { GroupService } from "../groups/group-service.js";
import type { GroupConfigRepository } from "../ports/group-config-repository.js";
import type { Logger } from "../ports/logger.js";
import type { ServerConfigRepository } from "../ports/server-config-repository.js";

/**
 * Keeps this replica's fleet in step with servers (and groups) its peers register, change or remove
 * at run time (through REST, or discovery on the fleet manager): such servers live in the shared configuration
 * store, and their events arrive through the shared event log. On a peer's `McpServerRegistered` or
 * `McpServerUpdated` this replica reads the stored record and takes it in (cold, or replacing its
 * own copy); on `McpServerRemoved` it drops its copy.
 *
 * Servers of the configuration file are left alone: every replica reads the same file and applies
 * it itself (a peer's reload does not change this replica's file). Hot-loaded servers are per
 * replica and not stored, so a peer's hot load has no record to take in.
 *
 * Events of one server are applied one after another, in the log's commit order; a store read that
 * fails is logged and the next event of that server (or a restart) brings the replica back in step.
 */
export function mirrorPeerRegistrations(deps: {
  bus: EventBus;
  fleet: Fleet;
  groups: GroupService;
  serverConfigs: ServerConfigRepository;
  groupConfigs: GroupConfigRepository;
  logger: Logger;
}): () => void {
  const { fleet, groups, serverConfigs, groupConfigs, logger } = deps;

  /** Groups created through REST on a peer: taken in, replaced or dropped likewise. */
  async function applyGroup(groupId: string, change: "saved" | "deleted"): Promise<void> {
    const local = groups.has(groupId) ? groups.require(groupId) : undefined;
    if (local?.source === "config") return;
    if (change === "deleted") {
      if (local) groups.remove(groupId);
      return;
    }
    const stored = (await groupConfigs.list()).find((group) => group.group_id === groupId);
    if (!stored) return;
    groups.register(stored, "api", false);
    logger.info({ group_id: groupId }, "group taken in from a peer replica");
  }

  async function apply(event: DomainEvent & { mcp_server_id: string }): Promise<void> {
    const id = event.mcp_server_id;
    const local = fleet.get(id);
    if (local?.spec.source === "config") return;
    if (event.type === "McpServerRemoved") {
      if (local) await fleet.forget(id);
      return;
    }
    const stored = await serverConfigs.get(id);
    // Gone again by now (a later removal is on its way), or a server this store never held.
    if (!stored) return;
    if (local && JSON.stringify(local.spec) === JSON.stringify(stored.spec)) return;
    await fleet.adopt(stored.spec);
    logger.info({ mcp_server_id: id, event_type: event.type }, "server taken in from a peer replica");
  }

  return deps.bus.subscribePeers((event) => {
    if (event.type === "GroupConfigChanged") {
      void fleet
        .exclusive(`group:${event.group_id}`, () => applyGroup(event.group_id, event.change))
        .catch((error: unknown) =>
          logger.error({ group_id: event.group_id, err: String(error) }, "peer group change not applied"),
        );
      return;
    }
    if (
      event.type !== "McpServerRegistered" &&
      event.type !== "McpServerUpdated" &&
      event.type !== "McpServerRemoved"
    ) {
      return;
    }
    void fleet
      .exclusive(event.mcp_server_id, () => apply(event))
      .catch((error: unknown) =>
        logger.error(
          { mcp_server_id: event.mcp_server_id, err: String(error) },
          "peer registration not applied",
        ),
      );
  });
}
