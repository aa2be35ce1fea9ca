import type { IncomingHttpHeaders } from "node:http";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  ErrorCode,
  type JSONRPCRequest,
  ListToolsRequestSchema,
  McpError,
  type ServerCapabilities,
  type ServerNotification,
  type ServerRequest,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { RequestContext } from "../../../app/context.js";
import type { FrontDoorRelay, RelayCall } from "../../../app/front-door/relay.js";
import type { ProjectedTool } from "../../../app/front-door/tool-projection.js";
import type { ProgressUpdate } from "../../../app/ports/upstream.js";
import type { AppServices } from "../../../app/services.js";
import { GatewayError } from "../../../domain/errors.js";
import { relayFailure, upstreamToolFailure } from "../error-mapping.js";
import { callManagementTool, listedTool, SERVER_NAME } from "../management-server.js";
import { checkParamHeaders } from "../param-headers.js";
import {
  callerAccess,
  frontDoorManagementTool,
  frontDoorManagementTools,
  frontDoorTool,
  UPSTREAM_PERMISSIONS,
} from "../tool-visibility.js";
import type { FrontDoorHub, FrontDoorSession, RequestChannel } from "./hub.js";

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;
type Params = Record<string, unknown> | undefined;

const AnyResult = z.looseObject({});

/** Upstream listings as a caller without `tool:invoke` sees them. */
const EMPTY_LISTINGS: Readonly<Record<string, Record<string, unknown[]>>> = {
  "resources/list": { resources: [] },
  "resources/templates/list": { resourceTemplates: [] },
  "prompts/list": { prompts: [] },
  "tasks/list": { tasks: [] },
};

export interface FrontDoorServerOptions {
  services: AppServices;
  relay: FrontDoorRelay;
  hub: FrontDoorHub;
  /** The session's key: transport session id, or `stdio`. */
  key: string;
  contextOf: (signal: AbortSignal) => RequestContext;
}

/**
 * The front-door MCP server of one client session: the management tools the caller may call plus
 * every projected upstream tool under its own name, and resources, prompts, completion, logging
 * and tasks relayed to the server that owns them.
 */
export function createFrontDoorServer(options: FrontDoorServerOptions): Server {
  const { services, relay, hub, key } = options;
  const accessOf = (signal: AbortSignal) => callerAccess(services, options.contextOf(signal));
  const server = new Server(
    { name: SERVER_NAME, version: services.instance.version },
    { capabilities: capabilities(relay.relaysTasks) },
  );
  // logging/setLevel is relayed to the upstreams rather than kept by the SDK.
  server.removeRequestHandler("logging/setLevel");
  const session: FrontDoorSession = { key, server, subscriptions: new Set() };

  server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
    const access = accessOf(extra.signal);
    const management = (await frontDoorManagementTools(access)).map(listedTool);
    if (!(await access.mayUseUpstreams("tools/list"))) return { tools: management };
    const ctx = options.contextOf(extra.signal);
    const upstream = await relay.toolsFor(ctx);
    // Left out: tools `header_exposure` withholds, and tools a `block` digest pin refuses (a drifted
    // description is the text a model must not read).
    const shown = upstream.filter(
      ({ target, tool }) =>
        !services.headerExposure?.withholds(target, tool) &&
        !services.pins?.hidesFromListing(target, tool, ctx.principal.tenant_id),
    );
    return { tools: [...management, ...shown.map(listing)] };
  });
  server.fallbackRequestHandler = async (request: JSONRPCRequest, extra: Extra) => {
    const leaves: (() => void)[] = [];
    const channel = channelOf(session, extra);
    const call: RelayCall = {
      ctx: options.contextOf(extra.signal),
      owner: key,
      onProgress: progressRelay(request.params, extra),
      onRouted: (serverId) => leaves.push(hub.enter(serverId, channel)),
      traceParent: traceHeaders(extra.requestInfo?.headers),
    };
    try {
      if (
        request.method !== "tools/call" &&
        !(await accessOf(extra.signal).mayUseUpstreams(request.method))
      ) {
        // The listings a session declares answer empty for a caller who may use no upstream, as its
        // `tools/list` shows only the management tools it may call; anything else is refused.
        const empty = EMPTY_LISTINGS[request.method];
        if (empty) return { ...empty };
        denied(call.ctx, UPSTREAM_PERMISSIONS, request.method);
        throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
      }
      return await dispatch(request.method, request.params, call, extra);
    } catch (error) {
      throw relayFailure(error, services.logger);
    } finally {
      for (const leave of leaves) leave();
    }
  };
  server.fallbackNotificationHandler = async (notification) => {
    if (notification.method === "notifications/roots/list_changed") {
      hub.forwardToUpstreams(notification.method, notification.params);
    }
  };
  server.onclose = () => hub.remove(key);
  /** Publishes a refusal the caller sees as an unknown tool or method (`AuthorizationDenied`). */
  function denied(ctx: RequestContext, permissions: readonly string[], what: string): void {
    if (!services.settings.authEnabled) return;
    services.accessEvents?.authorization(ctx.principal, permissions, false, `mcp:${what}`);
  }
  hub.add(session);
  return server;

  async function dispatch(
    method: string,
    params: Params,
    call: RelayCall,
    extra: Extra,
  ): Promise<Record<string, unknown>> {
    switch (method) {
      case "tools/call":
        return callTool(params, call, extra);
      case "resources/list":
        return relay.listResources(call.ctx);
      case "resources/templates/list":
        return relay.listResourceTemplates(call.ctx);
      case "resources/read":
        return relay.resourceRequest(method, params, call);
      case "resources/subscribe":
      case "resources/unsubscribe": {
        const result = await relay.resourceRequest(method, params, call);
        const uri = String(params?.uri);
        if (method === "resources/subscribe") session.subscriptions.add(uri);
        else session.subscriptions.delete(uri);
        return result;
      }
      case "prompts/list":
        return relay.listPrompts(call.ctx);
      case "prompts/get":
        return relay.getPrompt(params, call);
      case "completion/complete":
        return relay.complete(params, call);
      case "logging/setLevel":
        return relay.setLevel(params, call.ctx);
      case "tasks/get":
      case "tasks/result":
      case "tasks/cancel":
        return relay.taskRequest(method, params, call);
      case "tasks/list":
        return relay.listTasks(call);
      default:
        throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
    }
  }

  async function callTool(params: Params, call: RelayCall, extra: Extra): Promise<Record<string, unknown>> {
    const name = params?.name;
    if (typeof name !== "string") throw new McpError(ErrorCode.InvalidParams, "name must be a string");
    const rawArgs = params?.arguments ?? {};
    if (typeof rawArgs !== "object" || rawArgs === null || Array.isArray(rawArgs)) {
      throw new McpError(ErrorCode.InvalidParams, "arguments must be an object");
    }
    const args = rawArgs as Record<string, unknown>;
    const access = accessOf(extra.signal);
    const management = await frontDoorManagementTool(access, name);
    const headers = extra.requestInfo?.headers;
    if (management) {
      checkParamHeaders(services, listedTool(management), args, headers);
      return callManagementTool(services, management, args, options.contextOf(extra.signal));
    }
    // A management tool the caller may not call is hidden like an unknown one, and so is every
    // upstream tool without `tool:invoke`; the refusal is published all the same.
    const hidden = frontDoorTool(name);
    if (hidden || !(await access.mayUseUpstreams(name))) {
      denied(call.ctx, hidden ? hidden.operation.permissions : UPSTREAM_PERMISSIONS, name);
      throw new McpError(ErrorCode.MethodNotFound, `Unknown tool: ${name}`);
    }
    // Checked against the upstream tool as listed here; an unknown or withheld name is left to the
    // relay, whose gates answer it as unknown (-32601).
    const projected = relay.projection.find(name);
    if (projected && !services.headerExposure?.withholds(projected.target, projected.tool))
      checkParamHeaders(services, projected.tool, args, headers);
    try {
      return await relay.callTool(name, args, relayedParams(params), call);
    } catch (error) {
      return upstreamToolFailure(name, error, unlistedByPin(services, error, projected));
    }
  }
}

/**
 * Whether a refusal by a digest pin is of an unlisted tool, which answers as unknown (spec 2 §4,
 * shape 3): a tool a `block` pin refuses on a server named directly is left out of the caller's
 * `tools/list` by the same pin (the listing catches up with a drift a moment after the call sees
 * it). Through a group the refusing pin may be a member's while the group keeps listing the tool:
 * that call keeps its error result.
 */
function unlistedByPin(services: AppServices, error: unknown, projected: ProjectedTool | undefined): boolean {
  return (
    error instanceof GatewayError &&
    error.type === "ToolDigestMismatchError" &&
    projected !== undefined &&
    !services.groups.has(projected.target)
  );
}

/** The W3C trace context of the HTTP request that carried the message, if it has one. */
function traceHeaders(headers: IncomingHttpHeaders | undefined): Record<string, string> | undefined {
  const traceparent = headers?.traceparent;
  if (typeof traceparent !== "string") return undefined;
  const tracestate = headers?.tracestate;
  return typeof tracestate === "string" ? { traceparent, tracestate } : { traceparent };
}

function capabilities(relayTasks: boolean): ServerCapabilities {
  return {
    tools: { listChanged: true },
    resources: { subscribe: true, listChanged: true },
    prompts: { listChanged: true },
    completions: {},
    logging: {},
    ...(relayTasks && { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } }),
  };
}

/** An upstream tool as listed: its own fields, unchanged. */
function listing({ tool }: ProjectedTool): Tool {
  return {
    ...tool.listing,
    name: tool.name,
    ...(tool.description !== undefined && { description: tool.description }),
    inputSchema: tool.inputSchema as Tool["inputSchema"],
    ...(tool.outputSchema !== undefined && { outputSchema: tool.outputSchema as Tool["outputSchema"] }),
  };
}

/** `tools/call` parameters besides name and arguments, relayed as sent; the progress token is the gateway's own. */
function relayedParams(params: Params): Record<string, unknown> | undefined {
  if (!params) return undefined;
  const { name: _name, arguments: _arguments, _meta, ...rest } = params;
  const meta = _meta as Record<string, unknown> | undefined;
  if (meta) {
    const { progressToken: _token, ...otherMeta } = meta;
    if (Object.keys(otherMeta).length > 0) rest._meta = otherMeta;
  }
  return Object.keys(rest).length > 0 ? rest : undefined;
}

/** Relays upstream progress under the client's own token, when the client asked for progress. */
function progressRelay(params: Params, extra: Extra): ((progress: ProgressUpdate) => void) | undefined {
  const token = (params?._meta as { progressToken?: unknown } | undefined)?.progressToken;
  if (typeof token !== "string" && typeof token !== "number") return undefined;
  return (progress) => {
    void extra
      .sendNotification({ method: "notifications/progress", params: { ...progress, progressToken: token } })
      .catch(() => undefined);
  };
}

function channelOf(session: FrontDoorSession, extra: Extra): RequestChannel {
  return {
    session,
    sendNotification: (notification) => extra.sendNotification(notification as ServerNotification),
    sendRequest: (request, options) => extra.sendRequest(request as ServerRequest, AnyResult, options),
  };
}
