import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { ToolProjection } from "../../../src/app/front-door/tool-projection.js";
import { GroupService } from "../../../src/app/groups/group-service.js";
import type { ToolSchema } from "../../../src/domain/server/server-spec.js";
import { controllable, type FleetHarness, makeFleet } from "../../support/fleet.js";

const tool = (name: string, description = name): ToolSchema => ({
  name,
  description,
  inputSchema: { type: "object" },
});
const policy = (deny: string[]) => ({ allow_list: [], deny_list: deny, approval_list: [] });

let harness: FleetHarness;
afterEach(async () => harness?.close());

function setup() {
  harness = makeFleet();
  const logger = pino({ level: "silent" });
  const groups = new GroupService({ fleet: harness.fleet, bus: harness.bus, logger, random: () => 0.5 });
  const projection = new ToolProjection({ fleet: harness.fleet, groups, logger });
  return { fleet: harness.fleet, groups, projection };
}

describe("the front door's tool projection", () => {
  it("serves a name offered twice from the first target in id order", () => {
    const { fleet, projection } = setup();
    fleet.register(controllable("zeta", { predefined_tools: [tool("shared", "from zeta"), tool("z_only")] }));
    fleet.register(controllable("alpha", { predefined_tools: [tool("shared", "from alpha")] }));
    const byName = new Map(projection.tools().map((p) => [p.tool.name, p]));
    expect(byName.get("shared")).toMatchObject({ target: "alpha", tool: { description: "from alpha" } });
    expect(byName.get("z_only")?.target).toBe("zeta");
    expect(projection.tools()).toHaveLength(2);
  });

  it("hides tools a server's deny list refuses", () => {
    const { fleet, projection } = setup();
    fleet.register(
      controllable("s", {
        predefined_tools: [tool("keep"), tool("drop_me")],
        tool_policy: policy(["drop_*"]),
      }),
    );
    expect(projection.tools().map((p) => p.tool.name)).toEqual(["keep"]);
  });

  it("offers a group's member tools through the group, governed by every group of the member", () => {
    const { fleet, groups, projection } = setup();
    fleet.register(controllable("m1", { predefined_tools: [tool("a"), tool("b"), tool("c")] }));
    const group = (id: string, deny: string[]) =>
      groups.register(
        {
          group_id: id,
          strategy: "round_robin",
          min_healthy: 1,
          members: [{ id: "m1", weight: 1, priority: 1 }],
        } as never,
        "config",
        false,
        { group: policy(deny) },
      );
    group("g1", ["a"]);
    group("g2", ["b"]);
    const projected = projection.tools();
    // The member is not offered on its own; each group offers only what both groups allow.
    expect(projected.map((p) => [p.tool.name, p.target])).toEqual([["c", "g1"]]);
    expect(projection.find("a")).toBeUndefined();
  });

  it("tells listeners when the listing changes, and only then", () => {
    const { fleet, projection } = setup();
    projection.watch(harness.bus);
    let changes = 0;
    projection.onChange(() => changes++);
    projection.tools();
    fleet.register(controllable("s1", { predefined_tools: [tool("x")] }));
    expect(changes).toBe(1);
    projection.refresh();
    expect(changes).toBe(1);
    expect(projection.wasProjected("s1")).toBe(true);
    expect(projection.wasProjected("unknown")).toBe(false);
  });
});
