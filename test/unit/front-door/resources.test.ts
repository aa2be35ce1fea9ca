import { describe, expect, it } from "vitest";
import { ResourceLinks } from "../../../src/app/front-door/resource-links.js";
import { ResourceOwners, templatePattern } from "../../../src/app/front-door/resource-owners.js";

const linkResult = (...uris: string[]) => ({
  content: uris.map((uri) => ({ type: "resource_link", uri, name: uri })),
});

describe("resource links", () => {
  it("remembers the server of each linked URI per tenant", () => {
    const links = new ResourceLinks(10);
    links.remember("t1", linkResult("a://1"), "s1");
    links.remember(null, linkResult("a://2"), "s2");
    expect(links.owner("t1", "a://1")).toBe("s1");
    expect(links.owner("t2", "a://1")).toBeUndefined();
    expect(links.owner(null, "a://2")).toBe("s2");
  });

  it("evicts the oldest link of a tenant past max_per_tenant, refreshed links last", () => {
    const links = new ResourceLinks(2);
    links.remember("t", linkResult("u://1", "u://2"), "s");
    links.remember("t", linkResult("u://1"), "s");
    links.remember("t", linkResult("u://3"), "s");
    expect(links.count("t")).toBe(2);
    expect(links.owner("t", "u://2")).toBeUndefined();
    expect(links.owner("t", "u://1")).toBe("s");
    expect(links.owner("t", "u://3")).toBe("s");
  });

  it("ignores other content blocks", () => {
    const links = new ResourceLinks(2);
    links.remember("t", { content: [{ type: "text", text: "x", uri: "u://9" }] }, "s");
    expect(links.count("t")).toBe(0);
  });
});

describe("resource owners", () => {
  it("keeps the first owner of a URI and matches templates", () => {
    const owners = new ResourceOwners();
    expect(owners.claim("x://a", "s1")).toBe(true);
    expect(owners.claim("x://a", "s2")).toBe(false);
    expect(owners.claimTemplate("x://items/{id}", "s2")).toBe(true);
    expect(owners.ownerOf("x://a")).toBe("s1");
    expect(owners.ownerOf("x://items/42")).toBe("s2");
    expect(owners.ownerOf("y://items/42")).toBeUndefined();
  });

  it("turns URI templates into anchored patterns with literal text escaped", () => {
    expect(templatePattern("file:///{+path}").test("file:///a/b.txt")).toBe(true);
    expect(templatePattern("a.b://{x}").test("aXb://1")).toBe(false);
    expect(templatePattern("db://{table}/{id}").test("db://users/7")).toBe(true);
  });
});
