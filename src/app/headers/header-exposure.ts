import { GatewayError } from "../../domain/errors.js";
import {
  type ExposureVerdict,
  exposureVerdict,
  type HeaderExposureBlock,
  withholds,
} from "../../domain/policy/header-exposure.js";
import type { ToolInfo } from "../fleet/managed-server.js";
import type { GroupService } from "../groups/group-service.js";
import type { Logger } from "../ports/logger.js";
import type { CallGate, GatedCall } from "../routing/call-gate.js";

/**
 * `header_exposure` of the fleet: which listed tools are withheld because of their `x-mcp-header`
 * annotations. A server is governed by its own block and by the block of every group it belongs to
 * (a member inherits its group's block); a group target on the front door by its own block.
 *
 * Guaranteed: a tool is judged on its schema as last listed; each (server, tool, schema) is logged
 * once (`warn` at warning level, withheld tools at warning level, `refuse_boot` at error level).
 */
export class HeaderExposure {
  private readonly logged = new Set<string>();

  constructor(
    private readonly deps: { groups: Pick<GroupService, "groupsOf" | "has">; logger: Logger },
    /** Blocks by the id of the server or group that declares them. */
    private blocks: ReadonlyMap<string, HeaderExposureBlock>,
  ) {}

  /** Replaces the declared blocks (configuration reload); later listings and calls see the new ones. */
  configure(blocks: ReadonlyMap<string, HeaderExposureBlock>): void {
    this.blocks = blocks;
  }

  /** The verdict on a tool listed by `targetId` (a server, or a group on the front door). */
  verdict(targetId: string, tool: Pick<ToolInfo, "name" | "inputSchema" | "digest">): ExposureVerdict {
    const verdict = exposureVerdict(tool.inputSchema, this.blocksOf(targetId));
    this.report(targetId, tool, verdict);
    return verdict;
  }

  /** Whether the tool is hidden from listings and refused on call. */
  withholds(targetId: string, tool: Pick<ToolInfo, "name" | "inputSchema" | "digest">): boolean {
    return withholds(this.verdict(targetId, tool));
  }

  /**
   * A call gate refusing calls to withheld tools as calls to unknown tools (`ToolNotFoundError`, on
   * the front door JSON-RPC -32601). The routed server's last listing decides: a server that never
   * listed its tools is judged from its first listing on.
   */
  gate(): CallGate {
    return {
      name: "header_exposure",
      check: async (call: GatedCall) => {
        const listed = call.server.tools?.find((tool) => tool.name === call.tool);
        if (listed && this.withholds(call.server.id, listed)) {
          throw new GatewayError("ToolNotFoundError", `Tool not found: ${call.tool}`, {
            tool_name: call.tool,
          });
        }
      },
    };
  }

  private blocksOf(targetId: string): HeaderExposureBlock[] {
    // No `header_exposure` block anywhere (the common case): nothing to gather per call.
    if (this.blocks.size === 0) return [];
    const ids = this.deps.groups.has(targetId)
      ? [targetId]
      : [targetId, ...[...this.deps.groups.groupsOf(targetId)].sort()];
    return ids.flatMap((id) => this.blocks.get(id) ?? []);
  }

  private report(targetId: string, tool: Pick<ToolInfo, "name" | "digest">, verdict: ExposureVerdict): void {
    if (verdict.kind === "exposed") return;
    const key = `${targetId}\u0000${tool.name}\u0000${tool.digest}`;
    if (this.logged.has(key)) return;
    this.logged.add(key);
    const fields = { mcp_server_id: targetId, tool: tool.name };
    if (verdict.kind === "invalid") {
      this.deps.logger.warn(
        { ...fields, problem: verdict.problem },
        "tool withheld: invalid x-mcp-header annotation",
      );
      return;
    }
    const detail = {
      ...fields,
      header: verdict.header,
      property: verdict.path,
      deny_annotated: verdict.pattern,
      on_violation: verdict.action,
    };
    if (verdict.action === "warn")
      this.deps.logger.warn(detail, "tool exposes a denied parameter as a header");
    else if (verdict.action === "withdraw")
      this.deps.logger.warn(detail, "tool withheld: denied header exposure");
    else this.deps.logger.error(detail, "tool refused: denied header exposure (on_violation: refuse_boot)");
  }
}
