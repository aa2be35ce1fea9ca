import { GatewayError } from "../../domain/errors.js";
import { TASKS_EXTENSION_METHODS } from "../../domain/stateless-revision.js";
import type { UiResourceGate } from "../approvals/ui-resource-gate.js";
import type { RequestContext } from "../context.js";
import { reportUndeclared, undeclared } from "../fleet/capability-contract.js";
import type { ManagedServer } from "../fleet/managed-server.js";
import type { AskClient, ProgressUpdate, ToolCallResult } from "../ports/upstream.js";
import { routeCall } from "../routing/route-call.js";
import type { AppServices } from "../services.js";
import { offeredTo, toolsOfferedTo } from "./caller-view.js";
import { ResourceLinks } from "./resource-links.js";
import { ResourceOwners } from "./resource-owners.js";
import type { ProjectedTool, ToolProjection } from "./tool-projection.js";

/** Where a consented UI resource read carries its tenant's Content-Security-Policy. */
export const CSP_META_KEY = "airlock/csp";

/** How long a relayed request may take (the MCP SDK's default request timeout). */
export const RELAY_TIMEOUT_MS = 60_000;

export interface RelaySettings {
  /** `ui_resources`: the tenant allowlist and the consent hold on reads of `ui://` resources. */
  uiResources?: UiResourceGate;
  /** `relay_tasks_enabled`: task-augmented calls and `tasks/*` go through when true. */
  relayTasks: boolean;
  /** `resource_links.max_per_tenant`. */
  maxLinksPerTenant: number;
}

/** One downstream request being relayed. */
export interface RelayCall {
  ctx: RequestContext;
  onProgress?: ((progress: ProgressUpdate) => void) | undefined;
  /** Told which server the request reaches, right before it is sent there. */
  onRouted?: ((serverId: string) => void) | undefined;
  /** Who asked, for the tasks they create (a session id). */
  owner: string;
  /** The caller's trace context from outside `_meta` (see `RouteOptions.traceParent`). */
  traceParent?: Readonly<Record<string, string>> | undefined;
  /** See `CallOptions.clientCapabilities`. */
  clientCapabilities?: Readonly<Record<string, unknown>> | undefined;
  /** See `CallOptions.askClient`. */
  askClient?: AskClient | undefined;
}

type Params = Record<string, unknown> | undefined;
type Result = Record<string, unknown>;

const CAPABILITY = {
  resources: "resources",
  prompts: "prompts",
  completions: "completions",
  logging: "logging",
  tasks: "tasks",
} as const;

/**
 * The front door's relay of everything besides the management tools: upstream tools by name,
 * resources, prompts, completion, logging levels and tasks, each to the server that owns it.
 */
export class FrontDoorRelay {
  private readonly owners = new ResourceOwners();
  private readonly links: ResourceLinks;
  private readonly promptOwners = new Map<string, string>();
  private readonly reportedResources = new Set<string>();
  /** Task id -> the server that runs it and the session that created it. */
  private readonly tasks = new Map<string, { server: string; owner: string }>();

  constructor(
    private readonly services: AppServices,
    readonly projection: ToolProjection,
    private readonly settings: RelaySettings,
  ) {
    this.links = new ResourceLinks(settings.maxLinksPerTenant);
  }

  /** `resource_links.max_per_tenant` changed by a configuration reload. */
  setMaxLinksPerTenant(maxPerTenant: number): void {
    this.links.resize(maxPerTenant);
  }

  get relaysTasks(): boolean {
    return this.settings.relayTasks;
  }

  /** The upstream tools `tools/list` shows this caller (tenant policies and withdrawals applied). */
  async toolsFor(ctx: RequestContext): Promise<ProjectedTool[]> {
    const reading = this.services.governance?.fresh();
    if (reading) await reading;
    return toolsOfferedTo(this.services, this.projection.tools(), ctx);
  }

  /**
   * Whether `name` is an upstream tool this tenant is offered (projected, not withdrawn, not denied
   * by a policy): what `tools/list` would show it, but for the listing's per-caller hiding.
   */
  offers(name: string, tenant: string | null): boolean {
    const projected = this.projection.find(name);
    return projected !== undefined && offeredTo(this.services, projected, tenant);
  }

  /**
   * `tools/call` of an upstream tool; throws `ToolNotFoundError` for a name the projection lacks, and
   * for a tool a policy or a withdrawal hides from this caller (refused and recorded as such first).
   * Run by the `relay-tool-call` operation (`execute` waits for the call's events with
   * `event_store.commit: before_answer`).
   */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    extra: Params,
    call: RelayCall,
  ): Promise<ToolCallResult> {
    const projected = this.projection.find(name);
    if (!projected)
      throw new GatewayError("ToolNotFoundError", `Tool not found: ${name}`, { tool_name: name });
    return this.relayCall(projected, name, args, extra, call);
  }

  /**
   * Every other relayed MCP method, to the server that owns what it names (run by the
   * `relay-request` operation): resources, prompts, completion, logging levels and tasks.
   */
  request(method: string, params: Params, call: RelayCall, taskServer?: string): Promise<Result> {
    if (taskServer !== undefined) return this.handedTaskRequest(method, params, call, taskServer);
    switch (method) {
      case "resources/list":
        return this.listResources(call.ctx);
      case "resources/templates/list":
        return this.listResourceTemplates(call.ctx);
      case "resources/read":
      case "resources/subscribe":
      case "resources/unsubscribe":
        return this.resourceRequest(method, params, call);
      case "prompts/list":
        return this.listPrompts(call.ctx);
      case "prompts/get":
        return this.getPrompt(params, call);
      case "completion/complete":
        return this.complete(params, call);
      case "logging/setLevel":
        return this.setLevel(params, call.ctx);
      case "tasks/get":
      case "tasks/result":
      case "tasks/cancel":
        return this.taskRequest(method, params, call);
      case "tasks/list":
        return this.listTasks(call);
      default:
        return Promise.reject(methodNotFound(method));
    }
  }

  private async relayCall(
    projected: ProjectedTool,
    name: string,
    args: Record<string, unknown>,
    extra: Params,
    call: RelayCall,
  ): Promise<ToolCallResult> {
    const extraParams = this.settings.relayTasks || !extra ? extra : withoutTask(extra);
    let routed = "";
    const { result } = await routeCall(this.services, call.ctx, projected.target, name, args, {
      callId: this.services.ids.uuid(),
      timeoutMs: RELAY_TIMEOUT_MS,
      everyGroup: true,
      onProgress: call.onProgress,
      traceParent: call.traceParent,
      clientCapabilities: call.clientCapabilities,
      askClient: call.askClient,
      ...(extraParams && { extraParams }),
      onRouted: (serverId) => {
        routed = serverId;
        call.onRouted?.(serverId);
      },
    }).catch((error: unknown) => {
      // Spec 2 §4: a tool the caller is not shown answers like an unknown one.
      if (hidesTool(error) && !offeredTo(this.services, projected, call.ctx.principal.tenant_id)) {
        throw new GatewayError("ToolNotFoundError", `Tool not found: ${name}`, { tool_name: name });
      }
      throw error;
    });
    const task = (result as { task?: { taskId?: unknown } }).task;
    if (typeof task?.taskId === "string") this.tasks.set(task.taskId, { server: routed, owner: call.owner });
    this.links.remember(call.ctx.principal.tenant_id, result, routed);
    return result;
  }

  async listResources(ctx: RequestContext): Promise<Result> {
    const lists = await this.gather(CAPABILITY.resources, "resources/list", ctx);
    const resources: unknown[] = [];
    for (const { server, pages } of lists) {
      for (const page of pages) {
        for (const resource of asList(page.resources)) {
          const uri = (resource as { uri?: unknown }).uri;
          // Checked before the claim: a resource outside its server's contract names no owner.
          if (typeof uri !== "string" || !this.withinContract(server, uri) || !this.owners.claim(uri, server))
            continue;
          if (!this.allows(server, ctx, "resource", uri)) continue;
          if (this.settings.uiResources && !this.settings.uiResources.visible(uri, ctx.principal.tenant_id))
            continue;
          resources.push(resource);
        }
      }
    }
    return { resources };
  }

  async listResourceTemplates(ctx: RequestContext): Promise<Result> {
    const lists = await this.gather(CAPABILITY.resources, "resources/templates/list", ctx);
    const resourceTemplates: unknown[] = [];
    for (const { server, pages } of lists) {
      for (const page of pages) {
        for (const template of asList(page.resourceTemplates)) {
          const uriTemplate = (template as { uriTemplate?: unknown }).uriTemplate;
          if (
            typeof uriTemplate !== "string" ||
            !this.withinContract(server, uriTemplate) ||
            !this.owners.claimTemplate(uriTemplate, server)
          )
            continue;
          if (!this.allows(server, ctx, "resource", uriTemplate)) continue;
          resourceTemplates.push(template);
        }
      }
    }
    return { resourceTemplates };
  }

  /** `resources/read`, `resources/subscribe`, `resources/unsubscribe`: to the owner of `params.uri`. */
  async resourceRequest(method: string, params: Params, call: RelayCall): Promise<Result> {
    const uri = params?.uri;
    if (typeof uri !== "string") throw invalidParams("uri must be a string");
    const server = await this.resourceOwner(uri, call.ctx);
    // A resource the caller's `access:` denies is refused like a nonexistent one (spec 2 §2).
    const notFound = () => new GatewayError("ResourceNotFoundError", `Resource not found: ${uri}`, { uri });
    if (!server || !this.allows(server, call.ctx, "resource", uri)) throw notFound();
    const ui = this.settings.uiResources;
    if (!ui) return this.send(server, method, params, call);
    if (method !== "resources/read") {
      if (!ui.visible(uri, call.ctx.principal.tenant_id)) throw notFound();
      return this.send(server, method, params, call);
    }
    // A UI resource off the tenant's allowlist is absent; an allowed one waits for human consent.
    const verdict = await ui.beforeRead(call.ctx, server, uri);
    if (!verdict.relay) throw notFound();
    const result = await this.send(server, method, params, call);
    if (verdict.csp === null) return result;
    const meta = (result._meta as Record<string, unknown> | undefined) ?? {};
    return { ...result, _meta: { ...meta, [CSP_META_KEY]: verdict.csp } };
  }

  async listPrompts(ctx: RequestContext): Promise<Result> {
    const lists = await this.gather(CAPABILITY.prompts, "prompts/list", ctx);
    const prompts: unknown[] = [];
    const seen = new Set<string>();
    for (const { server, pages } of lists) {
      for (const page of pages) {
        for (const prompt of asList(page.prompts)) {
          const name = (prompt as { name?: unknown }).name;
          if (typeof name !== "string" || seen.has(name)) continue;
          if (!this.allows(server, ctx, "prompt", name)) continue;
          seen.add(name);
          this.promptOwners.set(name, server);
          prompts.push(prompt);
        }
      }
    }
    return { prompts };
  }

  async getPrompt(params: Params, call: RelayCall): Promise<Result> {
    const name = params?.name;
    if (typeof name !== "string") throw invalidParams("name must be a string");
    const server = await this.promptOwner(name, call.ctx);
    if (!server) throw invalidParams(`Prompt not found: ${name}`);
    return this.send(server, "prompts/get", params, call);
  }

  /** `completion/complete` for a prompt argument or a resource template, to their owner. */
  async complete(params: Params, call: RelayCall): Promise<Result> {
    const ref = params?.ref as { type?: unknown; name?: unknown; uri?: unknown } | undefined;
    let server: string | undefined;
    if (ref?.type === "ref/prompt" && typeof ref.name === "string")
      server = await this.promptOwner(ref.name, call.ctx);
    else if (ref?.type === "ref/resource" && typeof ref.uri === "string") {
      server = await this.resourceOwner(ref.uri, call.ctx);
      if (server && !this.allows(server, call.ctx, "resource", ref.uri)) server = undefined;
    } else throw invalidParams("ref must be a ref/prompt with a name or a ref/resource with a uri");
    if (!server) return { completion: { values: [], hasMore: false } };
    return this.send(server, "completion/complete", params, call);
  }

  /** `logging/setLevel`: every running server that logs gets the level. */
  async setLevel(params: Params, ctx: RequestContext): Promise<Result> {
    await this.gather(CAPABILITY.logging, "logging/setLevel", ctx, params, false);
    return {};
  }

  /** `tasks/get`, `tasks/result`, `tasks/cancel` of a task the caller's session created. */
  async taskRequest(method: string, params: Params, call: RelayCall): Promise<Result> {
    if (!this.settings.relayTasks) throw methodNotFound(method);
    const taskId = params?.taskId;
    if (typeof taskId !== "string") throw invalidParams("taskId must be a string");
    const task = this.tasks.get(taskId);
    if (!task || task.owner !== call.owner) throw invalidParams(`Task not found: ${taskId}`);
    return this.send(task.server, method, params, call);
  }

  /**
   * `tasks/get`, `tasks/update`, `tasks/cancel` (the tasks extension of revision 2026-07-28) of a
   * task on `serverId`: the caller's handle of it named the server, and was checked by the edge.
   */
  async handedTaskRequest(
    method: string,
    params: Params,
    call: RelayCall,
    serverId: string,
  ): Promise<Result> {
    if (!this.settings.relayTasks || !TASKS_EXTENSION_METHODS.has(method)) throw methodNotFound(method);
    if (!this.services.fleet.get(serverId)) throw invalidParams(`Task not found: ${String(params?.taskId)}`);
    return this.send(serverId, method, params, call);
  }

  /** `tasks/list`: the caller's session's tasks, from the servers that run them. */
  async listTasks(call: RelayCall): Promise<Result> {
    if (!this.settings.relayTasks) throw methodNotFound("tasks/list");
    const mine = new Map<string, Set<string>>();
    for (const [taskId, task] of this.tasks) {
      if (task.owner !== call.owner) continue;
      const ids = mine.get(task.server) ?? new Set<string>();
      ids.add(taskId);
      mine.set(task.server, ids);
    }
    const tasks: unknown[] = [];
    for (const [server, ids] of mine) {
      const page = await this.send(server, "tasks/list", undefined, call).catch(() => ({ tasks: [] }));
      for (const task of asList(page.tasks)) {
        if (ids.has(String((task as { taskId?: unknown }).taskId))) tasks.push(task);
      }
    }
    return { tasks };
  }

  /** The session that created a task, for its status notifications. */
  taskOwner(taskId: string): string | undefined {
    return this.tasks.get(taskId)?.owner;
  }

  /** Forgets the tasks of a session that ended. */
  forgetOwner(owner: string): void {
    for (const [taskId, task] of this.tasks) if (task.owner === owner) this.tasks.delete(taskId);
  }

  private async send(serverId: string, method: string, params: Params, call: RelayCall): Promise<Result> {
    const server = this.services.fleet.require(serverId);
    const connection = await this.connected(server);
    call.onRouted?.(serverId);
    server.inFlight++;
    try {
      return await connection.relay(method, params, {
        timeoutMs: RELAY_TIMEOUT_MS,
        signal: call.ctx.signal,
        onProgress: call.onProgress,
        clientCapabilities: call.clientCapabilities,
        askClient: call.askClient,
      });
    } finally {
      server.inFlight--;
      server.lastUsedMono = this.services.clock.monotonic();
    }
  }

  private async connected(server: ManagedServer) {
    if (!server.connection) await this.services.fleet.start(server, false);
    const connection = server.connection;
    if (!connection)
      throw new GatewayError("McpServerNotReadyError", `MCP server '${server.id}' is not ready`);
    return connection;
  }

  /**
   * One request to every server that declared `capability` (cold ones started, dead ones skipped),
   * in id order; list requests follow `nextCursor` pages. Servers that fail are left out.
   */
  private async gather(
    capability: string,
    method: string,
    ctx: RequestContext,
    params?: Params,
    paged = true,
  ): Promise<{ server: string; pages: Result[] }[]> {
    const servers = this.services.fleet
      .list()
      .filter((server) => server.lifecycle.state !== "dead")
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const answers = await Promise.all(
      servers.map(async (server) => {
        try {
          const connection = await this.connected(server);
          if (!(capability in connection.serverCapabilities)) return null;
          const pages: Result[] = [];
          let cursor: string | undefined;
          for (let page = 0; page < 100; page++) {
            const pageParams = cursor === undefined ? params : { ...params, cursor };
            const result = await connection.relay(method, pageParams, {
              timeoutMs: RELAY_TIMEOUT_MS,
              signal: ctx.signal,
            });
            pages.push(result);
            const next = result.nextCursor;
            if (!paged || typeof next !== "string" || next === cursor) break;
            cursor = next;
          }
          return { server: server.id, pages };
        } catch (error) {
          this.services.logger.debug(
            { mcp_server_id: server.id, method, error: String(error) },
            "front door relay left a server out",
          );
          return null;
        }
      }),
    );
    return answers.filter((answer) => answer !== null);
  }

  private async resourceOwner(uri: string, ctx: RequestContext): Promise<string | undefined> {
    const known = this.links.owner(ctx.principal.tenant_id, uri) ?? this.owners.ownerOf(uri);
    if (known && this.services.fleet.has(known)) return known;
    await this.listResources(ctx);
    await this.listResourceTemplates(ctx);
    return this.owners.ownerOf(uri);
  }

  /** The server whose prompt of that name this caller sees (a denied prompt has none). */
  private async promptOwner(name: string, ctx: RequestContext): Promise<string | undefined> {
    const known = this.promptOwners.get(name);
    if (known && this.services.fleet.has(known) && this.allows(known, ctx, "prompt", name)) return known;
    await this.listPrompts(ctx);
    const owner = this.promptOwners.get(name);
    return owner !== undefined && this.allows(owner, ctx, "prompt", name) ? owner : undefined;
  }

  /**
   * Whether a resource URI (or URI template) is within the server's declared
   * `capabilities.resources`: one outside it is reported once and, under `block`, hidden and
   * refused like a nonexistent one.
   */
  private withinContract(serverId: string, uri: string): boolean {
    const server = this.services.fleet.get(serverId);
    if (!server || undeclared(server.spec, "resources", [uri]).length === 0) return true;
    const key = `${serverId}\u0000${uri}`;
    if (!this.reportedResources.has(key)) {
      if (this.reportedResources.size >= MAX_REPORTED_RESOURCES) this.reportedResources.clear();
      this.reportedResources.add(key);
      reportUndeclared(server, this.services.logger, "resources", [uri]);
    }
    return (server.spec.capabilities?.enforcement_mode ?? "block") !== "block";
  }

  /**
   * Whether `access:` lets this caller see a prompt or resource of `server` (spec 2 §2), a resource
   * within the server's declared contract.
   */
  private allows(server: string, ctx: RequestContext, kind: "prompt" | "resource", key: string): boolean {
    if (kind === "resource" && !this.withinContract(server, key)) return false;
    const { governance, groups } = this.services;
    if (!governance) return true;
    return governance.accessAllows(server, groups.groupsOf(server), ctx.principal.tenant_id, kind, key);
  }
}

/** Resources outside a server's declared `capabilities.resources` already reported, by server and URI. */
const MAX_REPORTED_RESOURCES = 10_000;

/** Refusals that hide a tool from the caller: a policy's deny, a withdrawal. */
function hidesTool(error: unknown): boolean {
  if (!(error instanceof GatewayError)) return false;
  if (error.type === "ToolWithdrawnError") return true;
  return error.type === "ToolAccessDeniedError" && error.details?.reason === "denied";
}

function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function withoutTask(params: Record<string, unknown>): Record<string, unknown> {
  const { task: _task, ...rest } = params;
  return rest;
}

/** A relayed request with a parameter the relay cannot act on (JSON-RPC -32602 on the wire). */
function invalidParams(message: string): GatewayError {
  return new GatewayError("InvalidParamsError", message);
}

/** A relayed method this session does not serve (JSON-RPC -32601 on the wire). */
function methodNotFound(method: string): GatewayError {
  return new GatewayError("MethodNotFoundError", `Method not found: ${method}`);
}
