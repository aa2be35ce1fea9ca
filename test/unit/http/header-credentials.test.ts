import type { FastifyRequest } from "fastify";
import { describe, expect, it } from "vitest";
import { headerCredentials } from "../../../src/edges/http/plugins/authentication.js";

/** A request as Node hands its headers over: names in lower case, a repeated header as an array. */
const request = (headers: Record<string, string | string[]>) => ({ headers }) as unknown as FastifyRequest;

describe("the credentials a request's headers carry", () => {
  it("reads the configured API-key header whatever its case, and switches with the name asked for", () => {
    const both = request({ "x-api-key": " mcp_a ", "x-airlock-key": "mcp_b" });
    expect(headerCredentials(both, "X-API-Key")).toEqual({ apiKey: "mcp_a" });
    expect(headerCredentials(both, "X-Airlock-Key")).toEqual({ apiKey: "mcp_b" });
    expect(headerCredentials(both, "x-api-key")).toEqual({ apiKey: "mcp_a" });
  });

  it("takes a bearer token only from a well-formed Authorization header", () => {
    expect(headerCredentials(request({ authorization: "Bearer abc.def" }), "X-API-Key")).toEqual({
      bearer: "abc.def",
    });
    expect(headerCredentials(request({ authorization: "bearer\tabc " }), "X-API-Key")).toEqual({
      bearer: "abc",
    });
    for (const authorization of ["Basic abc", "Bearer", "Bearer a b", ""]) {
      expect(headerCredentials(request({ authorization }), "X-API-Key")).toEqual({});
    }
  });

  it("counts a header sent twice, or empty, as absent", () => {
    expect(headerCredentials(request({ "x-api-key": ["mcp_a", "mcp_b"] }), "X-API-Key")).toEqual({});
    expect(headerCredentials(request({ "x-api-key": "  " }), "X-API-Key")).toEqual({});
    expect(headerCredentials(request({}), "X-API-Key")).toEqual({});
  });
});
