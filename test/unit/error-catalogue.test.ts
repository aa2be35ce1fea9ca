import { ProtocolError } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { ApprovalRefusal } from "../../src/domain/approval/approval-refusal.js";
import {
  ERROR_CATALOGUE,
  type ErrorType,
  GatewayError,
  INTERNAL_ERROR_MESSAGE,
  notFound,
  RequestRejected,
} from "../../src/domain/errors.js";
import { restAnswer } from "../../src/edges/http/plugins/errors.js";
import { relayFailure, toolFailure, transportRefusal } from "../../src/edges/mcp/error-mapping.js";

const TYPES = Object.keys(ERROR_CATALOGUE) as ErrorType[];
const silent = { error: () => undefined } as never;

const payloadOf = (result: { content: { text: string }[] }) => JSON.parse(result.content[0]?.text ?? "");

describe("the error catalogue, as each edge writes it", () => {
  it.each(TYPES)("writes %s on REST in the shape its entry names", (type) => {
    const entry = ERROR_CATALOGUE[type];
    const error = new GatewayError(type, "what happened", { retry_after: 1.2 });
    const { status, headers, body } = restAnswer(error);
    switch (entry.rest) {
      case "domain":
        expect(status).toBe(entry.status);
        expect(body).toEqual({
          error: { code: type, message: "what happened", details: { retry_after: 1.2 } },
        });
        expect(headers).toEqual({ "Retry-After": "2" });
        break;
      case "internal":
        expect(status).toBe(500);
        // Only an entry that shows its details (a failed start says why) keeps them.
        expect(body).toEqual({
          error: {
            code: type,
            message: INTERNAL_ERROR_MESSAGE,
            details: "showsDetails" in entry && entry.showsDetails ? { retry_after: 1.2 } : null,
          },
        });
        break;
      case "flat":
        expect([status, body]).toEqual([
          entry.status,
          { error: type, detail: "what happened", retry_after: 1.2 },
        ]);
        break;
      case "coded":
        expect([status, body]).toEqual([
          entry.status,
          { error: type, message: "what happened", details: { retry_after: 1.2 } },
        ]);
        break;
      case "message":
        expect([status, body]).toEqual([entry.status, { error: "what happened", retry_after: 1.2 }]);
        break;
    }
  });

  it.each(TYPES)("answers %s as a management tool's failure in the shape its entry names", (type) => {
    const entry = ERROR_CATALOGUE[type];
    const error = new GatewayError(type, "what happened", null, { subject: "ghost" });
    if (entry.mcp === "jsonrpc") {
      expect(() => toolFailure("gateway_x", error)).toThrow(ProtocolError);
      return;
    }
    const result = toolFailure("gateway_x", error);
    if (entry.mcp === "refused") {
      expect(result.isError).toBe(true);
      expect(result.content[0]?.text).toMatch(/^Error executing tool gateway_x: /);
      return;
    }
    expect(result.isError).toBe(false);
    expect(payloadOf(result).error_type).toBe(entry.mcp === "internal" ? "InternalServerError" : type);
  });

  it("refuses an unknown server id before the run, naming it, and reports an unknown group as a run", () => {
    expect(toolFailure("gateway_stop", notFound("ghost"))).toEqual({
      content: [{ type: "text", text: "Error executing tool gateway_stop: unknown_mcp_server: ghost" }],
      isError: true,
    });
    const group = new GatewayError("McpServerNotFoundError", "Group not found: pool", null, {
      subject: "pool",
      mcp: "ran_and_failed",
    });
    expect(payloadOf(toolFailure("gateway_group_rebalance", group))).toEqual({
      error: "unknown_mcp_server: pool",
      error_type: "ValueError",
      details: {},
    });
  });

  it("keeps the fields of the folded families: flat codes, approval bodies, upstream JSON-RPC errors", () => {
    const flat = new RequestRejected(409, "declared_in_config", "declared", { mcp_server_id: "a" });
    expect([flat.code, flat.detail, flat.extra, flat.status]).toEqual([
      "declared_in_config",
      "declared",
      { mcp_server_id: "a" },
      409,
    ]);
    const approval = new ApprovalRefusal(409, { error: "Approval already resolved", state: "approved" });
    expect(restAnswer(approval)).toMatchObject({
      status: 409,
      body: { error: "Approval already resolved", state: "approved" },
    });
    const upstream = new GatewayError("ToolInvocationError", "needs a URL", null, {
      upstream: { code: -32042, message: "needs a URL", data: { url: "https://x" } },
    });
    expect(relayFailure(upstream, silent)).toMatchObject({
      code: -32042,
      message: "needs a URL",
      data: { url: "https://x" },
    });
  });

  it("gives the relay's refusals their JSON-RPC codes and the endpoint's refusals -32000", () => {
    for (const [type, code] of [
      ["InvalidParamsError", -32602],
      ["MethodNotFoundError", -32601],
      ["ResourceNotFoundError", -32002],
    ] as const) {
      expect(relayFailure(new GatewayError(type, "no"), silent)).toMatchObject({ code });
    }
    expect(relayFailure(new GatewayError("McpServerNotReadyError", "cold"), silent)).toMatchObject({
      code: -32603,
      data: { error_type: "McpServerNotReadyError" },
    });
    const refusal = transportRefusal(new GatewayError("SessionLimitExceeded", "cap", { retry_after: 3 }), 7);
    expect(refusal).toEqual({
      status: 429,
      headers: { "Retry-After": "3" },
      body: {
        jsonrpc: "2.0",
        error: {
          code: -32000,
          message: "cap",
          data: { error_type: "SessionLimitExceeded", details: { retry_after: 3 } },
        },
        id: 7,
      },
    });
  });
});
