import { describe, expect, it } from "vitest";
import { matchName } from "../../../src/app/hot-loading/name-match.js";
import { verificationOf } from "../../../src/app/hot-loading/verification.js";
import type { RegistryServer } from "../../../src/app/ports/mcp-registry.js";

const entry = (name: string, official: RegistryServer["official"] = { status: "active", isLatest: true }) =>
  ({ name, description: "", version: "1.0.0", packages: [], remotes: [], official }) satisfies RegistryServer;

describe("finding the registry entry a name identifies", () => {
  const found = [entry("io.github.a/weather"), entry("io.github.b/weather-pro"), entry("com.example/maps")];

  it("takes the entry whose full name matches, ignoring case", () => {
    expect(matchName("IO.github.a/Weather", found)).toEqual({ kind: "one", server: found[0] });
  });

  it("takes the one entry whose short name matches", () => {
    expect(matchName("maps", found)).toEqual({ kind: "one", server: found[2] });
  });

  it("answers ambiguous when several namespaces have the short name", () => {
    const twins = [entry("io.github.a/weather"), entry("io.github.c/weather")];
    expect(matchName("weather", twins)).toEqual({ kind: "ambiguous", matches: twins, exact: true });
  });

  it("never loads a partial match, even a single one: the registry's answer is offered as ambiguous", () => {
    const answer = [entry("io.github.a/weather"), entry("io.github.b/weather-pro")];
    expect(matchName("weath", answer)).toEqual({ kind: "ambiguous", matches: answer, exact: false });
    const single = [entry("io.github.b/weather-pro")];
    expect(matchName("weather-p", single)).toEqual({ kind: "ambiguous", matches: single, exact: false });
  });

  it("finds nothing in an empty answer, and never matches a deleted entry", () => {
    expect(matchName("weather", [])).toEqual({ kind: "none" });
    expect(matchName("gone", [entry("io.github.a/gone", { status: "deleted" })])).toEqual({ kind: "none" });
  });

  it("counts one server once, keeping the version the registry marks latest", () => {
    const old = entry("io.github.a/weather", { status: "active", isLatest: false });
    const latest = { ...entry("io.github.a/weather"), version: "2.0.0" };
    expect(matchName("weather", [old, latest])).toEqual({ kind: "one", server: latest });
  });
});

describe("what verified means", () => {
  it("is verified when the official metadata says active", () => {
    expect(verificationOf(entry("x/y"))).toEqual({ verified: true });
  });

  it("is not verified without official metadata, or when deprecated (with the registry's message)", () => {
    expect(verificationOf(entry("x/y", null))).toEqual({
      verified: false,
      reason: "the registry gives no official status for it",
    });
    expect(verificationOf(entry("x/y", { status: "deprecated", statusMessage: "use x/z" }))).toEqual({
      verified: false,
      reason: "the registry marks it deprecated: use x/z",
    });
  });
});
