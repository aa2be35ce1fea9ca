import type { IncomingHttpHeaders } from "node:http";
import {
  type ClientCapabilities,
  type JSONRPCRequest,
  ProtocolError,
  ProtocolErrorCode,
  type RequestId,
  type Server,
  type ServerCapabilities,
  type ServerContext,
  type ServerNotification,
  type Tool,
} from "@modelcontextprotocol/server";
import { z } from "zod";
import type { RequestContext } from "../../../app/context.js";
import type { FrontDoorServerServices } from "../../../app/edge-services.js";
import type { FrontDoorRelay, RelayCall } from "../../../app/front-door/relay.js";
import type { ProjectedTool } from "../../../app/front-door/tool-projection.js";
import { relayRequest, relayToolCall } from "../../../app/operations/relay-upstream.js";
import type { ProgressUpdate } from "../../../app/ports/upstream.js";
import { GatewayError } from "../../../domain/errors.js";
import { andThen, type MaybePromise } from "../../../domain/maybe-promise.js";
import {
  INPUT_REQUIRED_METHODS,
  TASKS_EXTENSION,
  TASKS_EXTENSION_METHODS,
} from "../../../domain/stateless-revision.js";
import { relayFailure, upstreamToolFailure } from "../error-mapping.js";
import { GatewayServer, requestHeaders } from "../gateway-server.js";
import { lazySchemaValidator } from "../lazy-schema-validator.js";
import { admitTool, callManagementTool, listedTool, SERVER_NAME } from "../management-server.js";
import { checkParamHeaders } from "../param-headers.js";
import { frontDoorManagementTools, frontDoorTool, mayUseUpstreams } from "../tool-visibility.js";
import type { AskClient } from "./held-request.js";
import { type FrontDoorHub, type FrontDoorSession, type RequestChannel, refuseUndeclared } from "./hub.js";
import type { InputRounds, StatelessInput } from "./input-rounds.js";
import type { TaskHandles } from "./task-handles.js";

type Extra = ServerContext;
type Params = Record<string, unknown> | undefined;

const AnyResult = z.looseObject({});

/** Upstream listings as a caller without `tool:invoke` sees them. */
const EMPTY_LISTINGS: Readonly<Record<string, Record<string, unknown[]>>> = {
  "resources/list": { resources: [] },
  "resources/templates/list": { resourceTemplates: [] },
  "prompts/list": { prompts: [] },
  "tasks/list": { tasks: [] },
};

/** The front door's relay is exempt from the command-bus rate limit, whoever calls (spec 2 §8). */
const UNLIMITED = { rateLimitExempt: true, admitted: true } as const;

export interface FrontDoorServerOptions {
  services: FrontDoorServerServices;
  relay: FrontDoorRelay;
  hub: FrontDoorHub;
  /** The session's key: transport session id, or `stdio`. */
  key: string;
  contextOf: (signal: AbortSignal) => RequestContext;
  /**
   * False for the server of one stateless request: it joins no hub, so it is sent no change
   * notification and never asked to answer an upstream's request for a client it lacks. Default
   * true (a session's server, or a stateless `subscriptions/listen`'s).
   */
  joinsHub?: boolean;
  /**
   * For the server of one stateless request: its rounds of input (what an upstream asks of the
   * client while relaying `tools/call`, `prompts/get` or `resources/read` is answered to it as
   * `input_required`), and what the request carries for them.
   */
  inputRounds?: { readonly rounds: InputRounds; readonly input: StatelessInput };
  /**
   * For a stateless request: the handles of the tasks an upstream creates for it (the tasks
   * extension), by which its client follows them on any replica.
   */
  taskHandles?: TaskHandles;
}

/**
 * What relaying one request needs of where it came from: the SDK's context of a session's server,
 * or the endpoint's own for a stateless `tools/call` served without a server (`createStatelessCall`).
 */
export interface RequestScope {
  readonly id: RequestId;
  readonly signal: AbortSignal;
  /** The HTTP headers that carried the request (none on stdio). */
  readonly headers: IncomingHttpHeaders | undefined;
  /** What the session's client declared at `initialize` (none for a stateless request). */
  readonly clientCapabilities: ClientCapabilities | undefined;
  /** Sends a notification along the request (progress, log messages). */
  notify(notification: { method: string; params?: Record<string, unknown> }): Promise<void>;
  /** Asks the session's client along the request; none for a stateless request. */
  readonly ask?: RequestChannel["sendRequest"];
}

/** Relays one request; rejects with the JSON-RPC error to answer. */
export type FrontDoorRequestHandler = (
  request: JSONRPCRequest,
  scope: RequestScope,
) => Promise<Record<string, unknown>>;

/**
 * The front-door MCP server of one client session: the management tools the caller may call plus
 * every projected upstream tool under its own name, and resources, prompts, completion, logging
 * and tasks relayed to the server that owns them.
 */
export function createFrontDoorServer(options: FrontDoorServerOptions): Server {
  const { services, relay, hub, key } = options;
  const server = new GatewayServer(
    { name: SERVER_NAME, version: services.instance.version },
    { capabilities: capabilities(relay.relaysTasks), jsonSchemaValidator: lazySchemaValidator() },
  );
  server.tracer = services.tracer;
  // logging/setLevel is relayed to the upstreams rather than kept by the SDK.
  server.removeRequestHandler("logging/setLevel");
  const session: FrontDoorSession = { key, server, subscriptions: new Set() };

  server.setRequestHandler("tools/list", async (_request, extra) => {
    const ctx = options.contextOf(extra.mcpReq.signal);
    const management = (await frontDoorManagementTools(services, ctx)).map(listedTool);
    if (!(await mayUseUpstreams(services, ctx, "tools/list"))) return { tools: management };
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
  const relayed = frontDoorRequests(options, session);
  server.fallbackRequestHandler = (request: JSONRPCRequest, extra: Extra) =>
    relayed(request, sessionScope(server, extra)).catch((error: unknown) => {
      throw server.failure(request.id, error, extra.mcpReq.signal);
    });
  server.fallbackNotificationHandler = async (notification) => {
    if (notification.method === "notifications/roots/list_changed") {
      hub.forwardToUpstreams(notification.method, notification.params);
    }
  };
  server.onclose = () => hub.remove(key);
  if (options.joinsHub !== false) hub.add(session);
  return server;
}

/**
 * The handler of one stateless `tools/call`, for the endpoint to serve without an SDK server
 * (`serveDirect`): what the server of a stateless request would do with it, and no more.
 */
export function createStatelessCall(options: FrontDoorServerOptions): FrontDoorRequestHandler {
  return frontDoorRequests(options, undefined);
}

/**
 * The relay of every request a front-door server does not answer itself; `session` is the
 * session's, none for a stateless `tools/call` served without a server.
 */
function frontDoorRequests(
  options: FrontDoorServerOptions,
  session: FrontDoorSession | undefined,
): FrontDoorRequestHandler {
  const { services, relay, hub, key } = options;
  return async (request, scope) => {
    const rounds = options.inputRounds;
    try {
      if (!rounds || !INPUT_REQUIRED_METHODS.has(request.method)) {
        return await handle(request, scope, channelOf(session, scope), options.contextOf(scope.signal));
      }
      // A stateless client: what the upstream asks of it on the way comes back as `input_required`.
      const ctx = options.contextOf(scope.signal);
      const params = request.params;
      const round = {
        method: request.method,
        name: String(params?.[request.method === "resources/read" ? "uri" : "name"] ?? ""),
        args: params?.arguments ?? {},
        principal: ctx.principal.id,
        input: rounds.input,
      };
      return await rounds.rounds.serve(
        round,
        () => admitRetry(request, ctx),
        (ask, signal) =>
          handle(request, scope, askingChannel(session, scope, ask), options.contextOf(signal)),
      );
    } catch (error) {
      throw relayFailure(error, services.logger);
    }
  };

  /**
   * Relays one request, asking the client through `channel` what the upstream asks on the way.
   * Rejects with the failure as it is: the caller maps it (`relayFailure`) once.
   */
  async function handle(
    request: JSONRPCRequest,
    scope: RequestScope,
    channel: RequestChannel,
    ctx: RequestContext,
  ): Promise<Record<string, unknown>> {
    const leaves: (() => void)[] = [];
    const routed: string[] = [];
    const call: RelayCall = {
      ctx,
      owner: key,
      onProgress: progressRelay(request.params, scope),
      onRouted: (serverId) => {
        routed.push(serverId);
        // A poll of a task is no request of the task's: what its server asks or tells meanwhile is
        // not for the poller.
        if (!TASKS_EXTENSION_METHODS.has(request.method)) leaves.push(hub.enter(serverId, channel));
      },
      traceParent: traceHeaders(scope.headers),
      clientCapabilities: options.inputRounds
        ? relayedCapabilities(options.inputRounds.input.capabilities, relay.relaysTasks)
        : scope.clientCapabilities,
      askClient: (method, params, signal, inputKey) => {
        if (!channel.refusesUndeclared) refuseUndeclared(scope.clientCapabilities, method);
        return channel.sendRequest({ method, ...(params && { params }) }, { signal, key: inputKey });
      },
    };
    try {
      const handles = options.taskHandles;
      if (request.method === "tools/call") {
        const result = await callTool(request.params, call, scope);
        const tool = String(request.params?.name);
        return handles && result.resultType === "task"
          ? await handedTask(handles, result, { server: routed.at(-1), tool }, ctx)
          : result;
      }
      if (handles && TASKS_EXTENSION_METHODS.has(request.method))
        return await taskRequest(handles, request, call);
      // The listings a session declares answer empty for a caller who may use no upstream, as its
      // `tools/list` shows only the management tools it may call; anything else is refused (by
      // `admit`, which publishes the refusal) as an unknown method.
      const empty = EMPTY_LISTINGS[request.method];
      if (empty && !(await mayUseUpstreams(services, call.ctx, request.method))) return { ...empty };
      const params = request.params;
      const result = await services.operations
        .execute(
          relayRequest,
          { relay, method: request.method, params, call },
          call.ctx,
          empty ? UNLIMITED : { rateLimitExempt: true, route: `mcp:${request.method}` },
        )
        .catch((error: unknown) => {
          throw refusedAsUnknown(error) ? methodNotFound(request.method) : error;
        });
      if (request.method === "resources/subscribe") session?.subscriptions.add(String(params?.uri));
      if (request.method === "resources/unsubscribe") session?.subscriptions.delete(String(params?.uri));
      return result;
    } finally {
      for (const leave of leaves) leave();
    }
  }

  /**
   * `tasks/get`, `tasks/update` or `tasks/cancel` of a task the caller was handed: to the server its
   * handle names, under the upstream's id, and answered with the handle again.
   */
  async function taskRequest(
    handles: TaskHandles,
    request: JSONRPCRequest,
    call: RelayCall,
  ): Promise<Record<string, unknown>> {
    const handle = request.params?.taskId;
    const task = await handles.open(handle, call.ctx.principal);
    if (!task) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Task not found: ${String(handle)}`);
    // The task is its tool call's: the caller must still be let call that tool.
    await admitRetry({ method: "tools/call", params: { name: task.tool } }, call.ctx);
    const params = { ...request.params, taskId: task.task };
    const result = await services.operations
      .execute(
        relayRequest,
        { relay, method: request.method, params, call, taskServer: task.server },
        call.ctx,
        { rateLimitExempt: true, route: `mcp:${request.method}` },
      )
      .catch((error: unknown) => {
        throw refusedAsUnknown(error) ? methodNotFound(request.method) : error;
      });
    return result.taskId === task.task ? { ...result, taskId: handle } : result;
  }

  /**
   * Lets the retry of a held request through as its first request was: a tool call is admitted
   * again (roles, tenant, policies as they are now), anything else needs the caller to use upstreams.
   */
  async function admitRetry(
    request: Pick<JSONRPCRequest, "method" | "params">,
    ctx: RequestContext,
  ): Promise<void> {
    const tool = request.method === "tools/call" ? String(request.params?.name) : undefined;
    const route = `mcp:${tool ?? request.method}`;
    try {
      await (tool
        ? services.operations.admit(relayToolCall, ctx, { route })
        : services.operations.admit(relayRequest, ctx, { route }));
    } catch (error) {
      if (!refusedAsUnknown(error)) throw error;
      throw tool ? unknownTool(tool) : methodNotFound(request.method);
    }
  }

  async function callTool(
    params: Params,
    call: RelayCall,
    scope: RequestScope,
  ): Promise<Record<string, unknown>> {
    const name = params?.name;
    if (typeof name !== "string")
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, "name must be a string");
    const rawArgs = params?.arguments ?? {};
    if (typeof rawArgs !== "object" || rawArgs === null || Array.isArray(rawArgs)) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, "arguments must be an object");
    }
    const args = rawArgs as Record<string, unknown>;
    const headers = scope.headers;
    // A management tool the caller may not call is hidden like an unknown one, and so is every
    // upstream tool without `tool:invoke`; `admit` publishes the refusal all the same.
    const management = frontDoorTool(name);
    if (management) {
      let admitted: RequestContext;
      try {
        admitted = await admitTool(services, management, args, call.ctx);
      } catch (error) {
        throw refusedAsUnknown(error) ? unknownTool(name) : error;
      }
      checkParamHeaders(services, listedTool(management), args, headers);
      return callManagementTool(services, management, args, admitted);
    }
    let admitted: RequestContext;
    try {
      admitted = await services.operations.admit(relayToolCall, call.ctx, { route: `mcp:${name}` });
    } catch (error) {
      throw refusedAsUnknown(error) ? unknownTool(name) : error;
    }
    // Checked against the upstream tool as listed here; an unknown or withheld name is left to the
    // relay, whose gates answer it as unknown (-32601).
    const projected = relay.projection.find(name);
    if (projected && !services.headerExposure?.withholds(projected.target, projected.tool))
      checkParamHeaders(services, projected.tool, args, headers);
    try {
      const relayed = { relay, name, arguments: args, extra: relayedParams(params), call };
      return await services.operations.execute(relayToolCall, relayed, admitted, UNLIMITED);
    } catch (error) {
      return upstreamToolFailure(name, error, unlistedByPin(services, error, projected));
    }
  }
}

/**
 * A `tools/call` result, with the id of the task it creates (`resultType: "task"`) replaced by the
 * caller's handle of it; any other result as it is.
 */
async function handedTask(
  handles: TaskHandles,
  result: Record<string, unknown>,
  { server, tool }: { server: string | undefined; tool: string },
  ctx: RequestContext,
): Promise<Record<string, unknown>> {
  if (result.resultType !== "task" || typeof result.taskId !== "string" || server === undefined)
    return result;
  const { id, tenant_id } = ctx.principal;
  const taskId = await handles.seal({ server, tool, task: result.taskId, principal: id, tenant: tenant_id });
  return { ...result, taskId };
}

/**
 * A stateless client's capabilities as declared upstream: without the tasks extension when the
 * gateway relays no tasks (an upstream would hand out tasks the client could not follow).
 */
function relayedCapabilities(
  capabilities: Record<string, unknown> | undefined,
  relaysTasks: boolean,
): Record<string, unknown> | undefined {
  const extensions = capabilities?.extensions as Record<string, unknown> | undefined;
  if (relaysTasks || extensions?.[TASKS_EXTENSION] === undefined) return capabilities;
  const { [TASKS_EXTENSION]: _tasks, ...others } = extensions;
  return { ...capabilities, extensions: others };
}

/**
 * Whether a stateless `tools/call` of `name` (its `Mcp-Name` header, read before the body) is
 * refused whatever its body says: an upstream tool the caller may not call (admission refuses it,
 * and publishes the refusal) or is not offered (unknown, withdrawn, denied by a policy). Management
 * tools are left to the request itself. Answered at once, without a promise, when the admission
 * decision is at hand (the caller's roles in memory): what nearly every call finds.
 */
export function refusedByName(
  services: FrontDoorServerServices,
  relay: FrontDoorRelay,
  name: string,
  ctx: RequestContext,
): MaybePromise<boolean> {
  if (frontDoorTool(name)) return false;
  const route = { route: `mcp:${name}` };
  // Asked first without recording (the request's own admission records it once it is read); a
  // refusal is then made by `admit`, which publishes it.
  return andThen(services.operations.mayAdmit(relayToolCall, ctx, route), (may) =>
    may
      ? !relay.offers(name, ctx.principal.tenant_id)
      : refusedOnAdmission(services, relay, name, ctx, route),
  );
}

/** {@link refusedByName} of a caller `mayAdmit` did not let through: the refusal is made by `admit`. */
async function refusedOnAdmission(
  services: FrontDoorServerServices,
  relay: FrontDoorRelay,
  name: string,
  ctx: RequestContext,
  route: { route: string },
): Promise<boolean> {
  try {
    await services.operations.admit(relayToolCall, ctx, route);
  } catch (error) {
    if (refusedAsUnknown(error)) return true;
    throw error;
  }
  return !relay.offers(name, ctx.principal.tenant_id);
}

/** An admission refusal, which the front door answers as an unknown tool or method (spec 2 §4, shape 3). */
function refusedAsUnknown(error: unknown): boolean {
  return (
    error instanceof GatewayError &&
    (error.type === "AccessDeniedError" || error.type === "AuthenticationError")
  );
}

function unknownTool(name: string): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.MethodNotFound, `Unknown tool: ${name}`);
}

function methodNotFound(method: string): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.MethodNotFound, `Method not found: ${method}`);
}

/**
 * Whether a refusal by a digest pin is of an unlisted tool, which answers as unknown (spec 2 §4,
 * shape 3): a tool a `block` pin refuses on a server named directly is left out of the caller's
 * `tools/list` by the same pin (the listing catches up with a drift a moment after the call sees
 * it). Through a group the refusing pin may be a member's while the group keeps listing the tool:
 * that call keeps its error result.
 */
function unlistedByPin(
  services: FrontDoorServerServices,
  error: unknown,
  projected: ProjectedTool | undefined,
): boolean {
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
function progressRelay(
  params: Params,
  scope: RequestScope,
): ((progress: ProgressUpdate) => void) | undefined {
  const token = (params?._meta as { progressToken?: unknown } | undefined)?.progressToken;
  if (typeof token !== "string" && typeof token !== "number") return undefined;
  return (progress) => {
    void scope
      .notify({ method: "notifications/progress", params: { ...progress, progressToken: token } })
      .catch(() => undefined);
  };
}

/** The scope of a request to a session's server, from the SDK's context. */
function sessionScope(server: Server, extra: Extra): RequestScope {
  return {
    id: extra.mcpReq.id,
    signal: extra.mcpReq.signal,
    headers: requestHeaders(server, extra.mcpReq.id),
    clientCapabilities: server.getClientCapabilities(),
    notify: (notification) => extra.mcpReq.notify(notification as ServerNotification),
    ask: (request, options) => extra.mcpReq.send(request, AnyResult, options),
  };
}

function channelOf(session: FrontDoorSession | undefined, scope: RequestScope): RequestChannel {
  return {
    ...(session && { session }),
    sendNotification: (notification) => scope.notify(notification),
    sendRequest: (request, options) =>
      scope.ask ? scope.ask(request, options) : Promise.reject(methodNotFound(request.method)),
  };
}

/** The channel of a stateless client's request: what the upstream asks goes to its rounds of input. */
function askingChannel(
  session: FrontDoorSession | undefined,
  scope: RequestScope,
  ask: AskClient,
): RequestChannel {
  return {
    ...(session && { session }),
    refusesUndeclared: true,
    // Along the answer to the request that started it, while that is open (logs, progress).
    sendNotification: (notification) => scope.notify(notification),
    sendRequest: (request, options) => ask(request.method, request.params, options.signal, options.key),
  };
}
