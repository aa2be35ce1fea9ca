import { describe, expect, it } from "vitest";
import { OPERATIONS, OPERATIONS_BY_NAME, TOOL_EXPOSURES } from "../../../src/app/catalog.js";

describe("operations by name, as forwarded leader-only commands find them", () => {
  it("gives every operation a name no other operation has", () => {
    const names = Object.values(OPERATIONS).map((operation) => operation.name);
    const repeated = names.filter((name, index) => names.indexOf(name) !== index);
    expect(repeated).toEqual([]);
    expect(OPERATIONS_BY_NAME.size).toBe(names.length);
  });

  it("finds the very operation of every leader-only tool by its name", () => {
    const leaderOnly = TOOL_EXPOSURES.filter((exposure) => exposure.operation.leaderOnly);
    expect(leaderOnly.map((exposure) => exposure.name)).toEqual(
      expect.arrayContaining([
        "gateway_discover",
        "gateway_discovered",
        "gateway_sources",
        "gateway_quarantine",
        "gateway_approve",
      ]),
    );
    for (const exposure of TOOL_EXPOSURES) {
      if (exposure.operation.leaderOnly)
        expect(OPERATIONS_BY_NAME.get(exposure.operation.name)).toBe(exposure.operation);
    }
  });
});
