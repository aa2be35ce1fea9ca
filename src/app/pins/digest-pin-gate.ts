import { GatewayError } from "../../domain/errors.js";
import type { Fleet } from "../fleet/fleet.js";
import type { Logger } from "../ports/logger.js";
import type { CallGate, GatedCall } from "../routing/call-gate.js";
import type { DigestPins } from "./digest-pins.js";

/**
 * Enforces digest pins on the live call path (spec 2 "Digest pinning"). A call to a tool of a
 * pinned server is compared with the tool as last listed by the running server:
 * - digest differs from the caller's pin: `block` refuses with `ToolDigestMismatchError` (gate
 *   reason `digest_mismatch`), `warn` serves it with a warning log line, `audit` with an info one;
 * - the tool has no pin for the caller: the unknown-tool policy (`block` refuses with reason
 *   `digest_unknown`, `warn` serves it and logs once per server and tool, `allow_unverified` serves
 *   it silently).
 *
 * A pinned server that is not running is started here rather than by the invoker, so the check
 * sees the listing of the instance that will serve the call, never the one of an earlier run.
 */
export class DigestPinGate implements CallGate {
  readonly name = "digest_pins";
  private readonly unknownLogged = new Set<string>();

  constructor(private readonly deps: { pins: DigestPins; fleet: Fleet; logger: Logger }) {}

  async check(call: GatedCall): Promise<void> {
    const { pins, fleet, logger } = this.deps;
    const { server, tool } = call;
    if (!pins.isPinned(server.id)) return;
    if (!server.connection || server.lifecycle.state === "initializing") await fleet.start(server, false);
    const tenant = call.ctx.principal.tenant_id;
    const verdict = pins.verdict(server, tool, tenant);
    if (verdict === null) return;
    const fields = { mcp_server_id: server.id, tool, tenant_id: tenant, call_id: call.callId };
    switch (verdict.kind) {
      case "unpinned":
      case "match":
        return;
      case "mismatch": {
        const { pin } = verdict;
        if (pin.enforcement === "block") {
          throw new GatewayError(
            "ToolDigestMismatchError",
            `Tool '${tool}' of MCP server '${server.id}' changed since it was pinned: digest ${verdict.observed} does not match the pinned ${pin.digest}`,
            {
              reason: "digest_mismatch",
              mcp_server_id: call.target,
              tool_name: tool,
              pinned_digest: pin.digest,
              observed_digest: verdict.observed,
            },
          );
        }
        const report = { ...fields, pinned_digest: pin.digest, observed_digest: verdict.observed };
        const message = `tool digest does not match its pin; call served (digest_enforcement: ${pin.enforcement})`;
        if (pin.enforcement === "warn") logger.warn(report, message);
        else logger.info(report, message);
        return;
      }
      case "unknown": {
        if (verdict.policy === "block") {
          throw new GatewayError(
            "ToolDigestMismatchError",
            `Tool '${tool}' of MCP server '${server.id}' has no digest pin, and unpinned tools of this server are blocked`,
            { reason: "digest_unknown", mcp_server_id: call.target, tool_name: tool },
          );
        }
        const key = `${server.id}\u0000${tool}`;
        if (verdict.policy === "warn" && !this.unknownLogged.has(key)) {
          this.unknownLogged.add(key);
          logger.warn(fields, "tool of a pinned MCP server has no digest pin; calls are served unverified");
        }
        return;
      }
    }
  }
}
