import { describe, expect, it } from "vitest";
import {
  exposureVerdict,
  type HeaderExposureBlock,
  withholds,
} from "../../../src/domain/policy/header-exposure.js";

const schema = {
  type: "object",
  properties: {
    region: { type: "string", "x-mcp-header": "Region" },
    auth: { type: "object", properties: { token: { type: "string", "x-mcp-header": "Session-Token" } } },
  },
};
const block = (deny_annotated: string[], on_violation: HeaderExposureBlock["on_violation"]) => ({
  deny_annotated,
  on_violation,
});

describe("header_exposure", () => {
  it("exposes a tool no glob matches, or with no annotation at all", () => {
    expect(exposureVerdict(schema, [block(["*password*"], "withdraw")])).toEqual({ kind: "exposed" });
    expect(exposureVerdict({ type: "object" }, [block(["*"], "refuse_boot")])).toEqual({ kind: "exposed" });
    expect(exposureVerdict(schema, [])).toEqual({ kind: "exposed" });
  });

  it.each([
    ["the header token", "session-token"],
    ["the token, ignoring case", "SESSION-*"],
    ["the property path", "auth.token"],
    ["the path with a glob", "*.TOKEN"],
  ])("matches globs against %s", (_name, glob) => {
    expect(exposureVerdict(schema, [block([glob], "withdraw")])).toEqual({
      kind: "denied",
      action: "withdraw",
      header: "Session-Token",
      path: "auth.token",
      pattern: glob,
    });
  });

  it("takes the strictest action among the blocks that match (a member and its groups)", () => {
    const verdict = exposureVerdict(schema, [
      block(["region"], "warn"),
      block(["auth.*"], "refuse_boot"),
      block(["*"], "withdraw"),
    ]);
    expect(verdict).toMatchObject({ kind: "denied", action: "refuse_boot", path: "auth.token" });
  });

  it("withholds invalid annotations always, denied ones unless the action is warn", () => {
    const invalid = exposureVerdict({ properties: { a: { type: "string", "x-mcp-header": "a b" } } }, []);
    expect(invalid.kind).toBe("invalid");
    expect(withholds(invalid)).toBe(true);
    expect(withholds(exposureVerdict(schema, [block(["region"], "warn")]))).toBe(false);
    expect(withholds(exposureVerdict(schema, [block(["region"], "withdraw")]))).toBe(true);
    expect(withholds(exposureVerdict(schema, [block(["region"], "refuse_boot")]))).toBe(true);
    expect(withholds({ kind: "exposed" })).toBe(false);
  });
});
