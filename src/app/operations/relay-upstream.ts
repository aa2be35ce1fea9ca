import { z } from "zod";
import type { FrontDoorRelay, RelayCall } from "../front-door/relay.js";
import { defineOperation, type Permission } from "../operation.js";
import type { ToolCallResult } from "../ports/upstream.js";

/** What upstream traffic through the front door needs: what `gateway_call` needs. */
const UPSTREAM: readonly Permission[] = ["tool:invoke"];

/** A front-door `tools/call` of an upstream tool, as the edge read it. */
export interface RelayedToolCall {
  readonly relay: FrontDoorRelay;
  readonly name: string;
  readonly arguments: Record<string, unknown>;
  /** `tools/call` parameters besides name and arguments (`task`, `_meta`), relayed as sent. */
  readonly extra: Record<string, unknown> | undefined;
  readonly call: RelayCall;
}

/** Any other relayed front-door request (resources, prompts, completion, logging, tasks). */
export interface RelayedRequest {
  readonly relay: FrontDoorRelay;
  readonly method: string;
  readonly params: Record<string, unknown> | undefined;
  readonly call: RelayCall;
  /**
   * For `tasks/*` of a task a stateless client was handed (the tasks extension): the server that
   * runs it, as its handle names it.
   */
  readonly taskServer?: string;
}

/**
 * The edge hands over what it read from the JSON-RPC message (its checks of `name` and
 * `arguments` answer `-32602` in the protocol's own words); one check, and the object passes as it is.
 */
const relayed = <T>() => z.custom<T>((value) => typeof value === "object" && value !== null);

/**
 * `tools/call` of an upstream tool through the front door: routed by the tool's projected name to
 * its server or group, after the tool policies and gates (`routeCall`). Needs `tool:invoke`; exempt
 * from the command-bus rate limit as every front-door relay is (the tool-call path has the tenant
 * budgets). Answers once the call's events are committed (`event_store.commit: before_answer`).
 */
export const relayToolCall = defineOperation({
  name: "relay-tool-call",
  kind: "command",
  summary: "Relay a front-door tools/call to the upstream server that owns the tool.",
  permissions: UPSTREAM,
  rateLimitExempt: true,
  input: relayed<RelayedToolCall>(),
  run(_services, input, ctx): Promise<ToolCallResult> {
    input.call.ctx = ctx;
    return input.relay.callTool(input.name, input.arguments, input.extra, input.call);
  },
});

/**
 * Every other MCP method the front door relays (resources, prompts, completion, logging levels,
 * tasks) to the server that owns what it names. Needs `tool:invoke`; rate-limit exempt.
 */
export const relayRequest = defineOperation({
  name: "relay-request",
  kind: "query",
  summary: "Relay a front-door MCP request (resources, prompts, completion, logging, tasks) upstream.",
  permissions: UPSTREAM,
  rateLimitExempt: true,
  input: relayed<RelayedRequest>(),
  run(_services, input, ctx): Promise<Record<string, unknown>> {
    input.call.ctx = ctx;
    return input.relay.request(input.method, input.params, input.call, input.taskServer);
  },
});
