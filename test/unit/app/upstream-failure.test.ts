import { ProtocolError, SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { upstreamFailure } from "../../../src/app/fleet/upstream-failure.js";

describe("upstreamFailure", () => {
  it("keeps one MCP error prefix where an SDK server's message carried it already", () => {
    // An SDK server of the 2025 era answers a thrown McpError(-32050, "custom") with its message,
    // prefix included.
    const failure = upstreamFailure(
      new ProtocolError(-32050, "MCP error -32050: custom"),
      "ToolInvocationError",
    );
    expect(failure).toMatchObject({
      type: "ToolInvocationError",
      message: "MCP error -32050: custom",
      upstream: { code: -32050, message: "MCP error -32050: custom" },
    });
  });

  it("names an upstream's JSON-RPC error with its code, and leaves other messages as they are", () => {
    const failure = upstreamFailure(
      new ProtocolError(-32602, "bad params", { why: 1 }),
      "ToolInvocationError",
    );
    expect(failure.message).toBe("MCP error -32602: bad params");
    expect(failure.upstream).toEqual({ code: -32602, message: "bad params", data: { why: 1 } });
    expect(upstreamFailure(new ProtocolError(-32603, "boom"), "CannotStartMcpServerError")).toMatchObject({
      type: "CannotStartMcpServerError",
      message: "MCP error -32603: boom",
      upstream: undefined,
    });
    expect(upstreamFailure(new Error("MCP error -1: MCP error -2: x"), "ToolInvocationError").message).toBe(
      "MCP error -1: MCP error -2: x",
    );
  });

  it("takes no failure of the client itself, nor an Error with a numeric code, for the upstream's", () => {
    const local = upstreamFailure(
      new SdkError(SdkErrorCode.NotConnected, "Not connected"),
      "ToolInvocationError",
    );
    expect(local).toMatchObject({ message: "Not connected", upstream: undefined });
    const other = upstreamFailure(
      Object.assign(new Error("SSE error: gone"), { code: 404 }),
      "ToolInvocationError",
    );
    expect(other).toMatchObject({ message: "SSE error: gone", upstream: undefined });
  });

  it("names a timeout with its bound", () => {
    const timeout = Object.assign(new Error("t"), { name: "TimeoutError" });
    expect(upstreamFailure(timeout, "ToolInvocationError", 1500)).toMatchObject({
      type: "ToolTimeoutError",
      details: { timeout_ms: 1500 },
    });
  });
});
