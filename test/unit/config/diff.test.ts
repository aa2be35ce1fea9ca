import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { changedFields, type DiffSide, diffConfigs } from "../../../src/config/diff.js";
import { parseConfig } from "../../../src/config/load.js";

function side(yaml: string): DiffSide {
  return { config: parseConfig(yaml, { env: {}, strict: false }).config, raw: parse(yaml) };
}

const BASE = `
mcp_servers:
  alpha:
    mode: subprocess
    command: [node, alpha.js]
  beta:
    mode: subprocess
    command: [node, beta.js]
    env: {A: "1"}
`;

describe("the reload diff", () => {
  it("reports an identical file as all unchanged", () => {
    const plan = diffConfigs(side(BASE), side(BASE));
    expect(plan).toMatchObject({ added: [], removed: [], modified: [], refusal: null });
    expect([...plan.unchanged].sort()).toEqual(["alpha", "beta"]);
  });

  it("reports a new id as added and a missing one as removed", () => {
    const next = side(`
mcp_servers:
  alpha:
    mode: subprocess
    command: [node, alpha.js]
  gamma:
    mode: subprocess
    command: [node, gamma.js]
`);
    const plan = diffConfigs(side(BASE), next);
    expect(plan.added).toEqual(["gamma"]);
    expect(plan.removed).toEqual(["beta"]);
    expect(plan.unchanged).toEqual(["alpha"]);
  });

  it("names every compared field that changed", () => {
    const next = side(`
mcp_servers:
  alpha:
    mode: subprocess
    command: [node, other.js]
    idle_ttl_s: 30
  beta:
    mode: subprocess
    command: [node, beta.js]
    env: {A: "2"}
`);
    const plan = diffConfigs(side(BASE), next);
    expect(plan.modified).toEqual([
      { id: "alpha", fields: ["command", "idle_ttl_s"] },
      { id: "beta", fields: ["env"] },
    ]);
  });

  it("compares after defaults: writing a default value is no change", () => {
    const next = side(`
mcp_servers:
  alpha:
    mode: subprocess
    command: [node, alpha.js]
    idle_ttl_s: 300
    env: {}
  beta:
    mode: subprocess
    command: [node, beta.js]
    env: {A: "1"}
`);
    expect(diffConfigs(side(BASE), next).modified).toEqual([]);
  });

  it("counts an explicit null or empty value where the default is non-empty as a change", () => {
    expect(
      changedFields({ http: { timeout_s: 30 } }, { http: { timeout_s: 30 } }, {}, { http: null }),
    ).toEqual(["http"]);
    expect(changedFields({ http: { timeout_s: 30 } }, { http: { timeout_s: 30 } }, {}, { http: {} })).toEqual(
      ["http"],
    );
    // Where the default itself is empty an empty value is the default.
    expect(changedFields({ env: {} }, { env: {} }, {}, { env: {} })).toEqual([]);
    expect(changedFields({}, { description: undefined }, {}, { description: null })).toEqual([]);
  });

  it("leaves a server with only a new tool access block unchanged, marked for a live update", () => {
    const next = side(`
mcp_servers:
  alpha:
    mode: subprocess
    command: [node, alpha.js]
    tools: {deny_list: [danger]}
  beta:
    mode: subprocess
    command: [node, beta.js]
    env: {A: "1"}
`);
    const plan = diffConfigs(side(BASE), next);
    expect(plan.modified).toEqual([]);
    expect(plan.policyChanged).toEqual(["alpha"]);
  });

  it("refuses a changed tool_access.mode", () => {
    const next = side(`${BASE}\ntool_access:\n  mode: front_door\n`);
    expect(diffConfigs(side(BASE), next).refusal).toMatch(/^tool_access\.mode: .*'egress' to 'front_door'/);
  });

  it("lists changed sections that need a restart and not the applied ones", () => {
    const next = side(`${BASE}\nlogging:\n  level: DEBUG\nexecution:\n  max_concurrency: 7\n`);
    expect(diffConfigs(side(BASE), next).restartSections).toEqual(["logging"]);
  });

  it("diffs inline group members as servers and reports a group whose weights changed", () => {
    const group = (weight: number) => `
mcp_servers:
  alpha:
    mode: subprocess
    command: [node, alpha.js]
  pool:
    mode: group
    members:
      - id: alpha
        weight: ${weight}
      - id: inline-one
        mode: subprocess
        command: [node, one.js]
`;
    const plan = diffConfigs(side(group(1)), side(group(5)));
    expect(plan.groupsChanged).toEqual(["pool"]);
    expect([...plan.unchanged].sort()).toEqual(["alpha", "inline-one"]);
    expect(plan.modified).toEqual([]);
  });
});
