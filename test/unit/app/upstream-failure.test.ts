import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { upstreamFailure } from "../../../src/app/fleet/upstream-failure.js";

describe("upstreamFailure", () => {
  it("keeps one MCP error prefix where an SDK server's message carried it already", () => {
    // An SDK server answers a thrown McpError(-32050, "custom") with its message, prefix included.
    const failure = upstreamFailure(new McpError(-32050, "MCP error -32050: custom"), "ToolInvocationError");
    expect(failure).toMatchObject({ type: "ToolInvocationError", message: "MCP error -32050: custom" });
  });

  it("leaves a single prefix and other messages as they are", () => {
    expect(upstreamFailure(new McpError(-32602, "bad params"), "ToolInvocationError").message).toBe(
      "MCP error -32602: bad params",
    );
    expect(upstreamFailure(new Error("MCP error -1: MCP error -2: x"), "ToolInvocationError").message).toBe(
      "MCP error -1: MCP error -2: x",
    );
  });

  it("names a timeout with its bound", () => {
    const timeout = Object.assign(new Error("t"), { name: "TimeoutError" });
    expect(upstreamFailure(timeout, "ToolInvocationError", 1500)).toMatchObject({
      type: "ToolTimeoutError",
      details: { timeout_ms: 1500 },
    });
  });
});
