import { DigestPinGate } from "../app/pins/digest-pin-gate.js";
import { DigestPins } from "../app/pins/digest-pins.js";
import type { AppServices } from "../app/services.js";
import type { GatewayConfig } from "../config/schema.js";
import { isGroupEntry } from "../config/schema.js";
import type { Periodic } from "../control/periodic.js";
import { pinRecheck } from "../control/pin-recheck.js";
import type { PinBlock } from "../domain/policy/digest-pins.js";

/** The pins of a configuration, their call gate and their re-check loop. */
export interface PinsWiring {
  pins: DigestPins;
  gate: DigestPinGate;
  /** Null when `tool_projection.pin_recheck_interval_s` is 0 (or nothing is pinned). */
  recheck: Periodic | null;
  /** Starts comparing every listing with the pins; returns the unsubscribe function. */
  watch(): () => void;
}

/**
 * Reads the `tool_projection` blocks of servers, groups and inline group members (read at start,
 * like the rest of the fleet's declaration) and wires the pins into the call path.
 */
export function createDigestPins(
  config: GatewayConfig,
  services: Pick<AppServices, "fleet" | "groups" | "bus" | "logger">,
): PinsWiring {
  const blocks = pinBlocks(config);
  const pins = new DigestPins(services, blocks);
  const interval = config.tool_projection.pin_recheck_interval_s;
  return {
    pins,
    gate: new DigestPinGate({ pins, fleet: services.fleet, logger: services.logger }),
    recheck:
      interval > 0 && blocks.size > 0 ? pinRecheck(pins, services.fleet, interval, services.logger) : null,
    watch: () => pins.watch(),
  };
}

/** Every declared `tool_projection` block, by the id of the server or group that declares it. */
export function pinBlocks(config: GatewayConfig): Map<string, PinBlock> {
  const blocks = new Map<string, PinBlock>();
  const add = (id: string, block: PinBlock | undefined) => {
    if (block) blocks.set(id, block);
  };
  for (const [id, entry] of Object.entries(config.mcp_servers)) {
    add(id, entry.tool_projection);
    if (!isGroupEntry(entry)) continue;
    for (const member of entry.members)
      if (member.kind === "inline") add(member.id, member.server.tool_projection);
  }
  return blocks;
}
