import { randomBytes } from "node:crypto";
import type { Server } from "@modelcontextprotocol/server";
import { TOOL_EXPOSURES } from "../app/catalog.js";
import type { RequestContext } from "../app/context.js";
import { FrontDoorRelay } from "../app/front-door/relay.js";
import { ToolProjection } from "../app/front-door/tool-projection.js";
import type { AppServices } from "../app/services.js";
import { deepEqual } from "../config/diff.js";
import type { GatewayConfig } from "../config/schema.js";
import type { MaybePromise } from "../domain/maybe-promise.js";
import type { ReadinessCheck } from "../edges/http/routes/health.js";
import { FrontDoorHub } from "../edges/mcp/front-door/hub.js";
import { InputRounds, type StatelessInput } from "../edges/mcp/front-door/input-rounds.js";
import { RequestStateCodec } from "../edges/mcp/front-door/request-state.js";
import {
  createFrontDoorServer,
  createStatelessCall,
  type FrontDoorRequestHandler,
  type FrontDoorServerOptions,
  refusedByName,
} from "../edges/mcp/front-door/server.js";
import { TaskHandles } from "../edges/mcp/front-door/task-handles.js";
import type { EdgeServices } from "./edge-services.js";
import { createUiResourceGate } from "./open-approvals.js";

/** Client capabilities the gateway declares to upstreams on the front door: what it relays. */
export const RELAYED_CLIENT_CAPABILITIES = {
  sampling: {},
  elicitation: {},
  roots: { listChanged: true },
} as const;

/** First retry of a required server that did not project, then doubling up to the cap. */
const FIRST_RETRY_MS = 5_000;
const MAX_RETRY_MS = 60_000;

export interface FrontDoor {
  /** A new client session's MCP server. */
  sessionServer(key: string, contextOf: (signal: AbortSignal) => RequestContext): Server;
  /**
   * The server of one stateless request (other than `subscriptions/listen`): it joins no hub, so it
   * is sent no change notification and never asked to answer an upstream's request in a client's stead.
   */
  statelessServer(
    key: string,
    contextOf: (signal: AbortSignal) => RequestContext,
    input: StatelessInput,
  ): Server;
  /** The handler of one stateless `tools/call`, which the endpoint serves without a server. */
  statelessCall(
    key: string,
    contextOf: (signal: AbortSignal) => RequestContext,
    input: StatelessInput,
  ): FrontDoorRequestHandler;
  /** Whether a stateless call of tool `name` is refused before its body is read (`refusedByName`). */
  refusesTool(name: string, ctx: RequestContext): MaybePromise<boolean>;
  /**
   * Holds readiness until the required catalogue was projected; ready at once without one. Always
   * present, as a reload may add a catalogue.
   */
  readonly readiness: ReadinessCheck;
  /** Starts every server in the background so that its tools are projected. */
  warm(): void;
  /**
   * Applies a reloaded configuration's `resource_links`, `ui_resources` and
   * `tool_access.required_catalogue`. A changed catalogue opens a new `retry_for_s` window from now
   * and starts its servers that are not running (after `warm`).
   */
  configure(config: GatewayConfig): void;
  close(): void;
}

/** The front-door topology: projection, relay and the sessions' hub. */
/** `edges` is what the sessions' servers and the hub see of `services` (`edge-services.ts`). */
export function createFrontDoor(
  services: AppServices,
  edges: EdgeServices,
  config: GatewayConfig,
): FrontDoor {
  const projection = new ToolProjection(services, new Set(TOOL_EXPOSURES.map((tool) => tool.name)));
  const stopWatching = projection.watch(services.bus);
  const uiResources = createUiResourceGate(config, services);
  const relay = new FrontDoorRelay(services, projection, {
    relayTasks: config.relay_tasks_enabled,
    maxLinksPerTenant: config.resource_links.max_per_tenant,
    uiResources,
  });
  const hub = new FrontDoorHub(edges, relay);
  const inputRounds = new InputRounds(new RequestStateCodec(() => requestStateKey(services)));
  const taskHandles = new TaskHandles(() => requestStateKey(services));
  // Replaced by a reload that changes the catalogue; the window restarts then.
  let catalogue = config.tool_access.required_catalogue;
  let windowEnds = catalogue ? services.clock.monotonic() + catalogue.retry_for_s * 1000 : 0;
  const timers = new Set<NodeJS.Timeout>();
  let closed = false;
  let warmed = false;

  /** A required id is met once it, or for a group any one member, was projected. */
  const missing = (): string[] => {
    if (!catalogue) return [];
    projection.tools();
    return catalogue.servers.filter((id) => {
      const members = services.groups.has(id) ? services.groups.memberIds(id) : [id];
      return !members.some((member) => projection.wasProjected(member));
    });
  };

  const start = async (id: string): Promise<void> => {
    const server = services.fleet.get(id);
    if (!server || server.connection) return;
    try {
      await services.fleet.start(server, false);
    } catch (error) {
      services.logger.warn(
        { mcp_server_id: id, error: error instanceof Error ? error.message : String(error) },
        "front door: server did not start; its tools are not projected",
      );
    }
  };

  const retryRequired = (delay: number) => {
    if (closed || services.clock.monotonic() >= windowEnds) return;
    const ids = missing();
    if (ids.length === 0) return;
    const timer = setTimeout(async () => {
      timers.delete(timer);
      for (const id of ids) {
        const members = services.groups.has(id) ? services.groups.memberIds(id) : [id];
        await Promise.all(members.map(start));
      }
      retryRequired(Math.min(MAX_RETRY_MS, delay * 2));
    }, delay);
    timer.unref();
    timers.add(timer);
  };

  /** What serving one stateless request needs: no hub, its input rounds, the task handles. */
  const statelessOptions = (
    key: string,
    contextOf: (signal: AbortSignal) => RequestContext,
    input: StatelessInput,
  ): FrontDoorServerOptions => ({
    services: edges,
    relay,
    hub,
    key,
    contextOf,
    joinsHub: false,
    inputRounds: { rounds: inputRounds, input },
    taskHandles,
  });

  return {
    sessionServer: (key, contextOf) => createFrontDoorServer({ services: edges, relay, hub, key, contextOf }),
    statelessServer: (key, contextOf, input) =>
      createFrontDoorServer(statelessOptions(key, contextOf, input)),
    statelessCall: (key, contextOf, input) => createStatelessCall(statelessOptions(key, contextOf, input)),
    refusesTool: (name, ctx) => refusedByName(edges, relay, name, ctx),
    readiness: {
      name: "required_catalogue",
      check: () => {
        const waiting = missing();
        if (!catalogue || waiting.length === 0 || services.clock.monotonic() >= windowEnds)
          return { ready: true };
        return {
          ready: false,
          detail: {
            status: "waiting",
            missing_mcp_servers: waiting,
            retry_for_s: catalogue.retry_for_s,
          },
        };
      },
    },
    warm() {
      warmed = true;
      void Promise.all(services.fleet.list().map((server) => start(server.id))).then(() =>
        retryRequired(FIRST_RETRY_MS),
      );
    },
    configure(next) {
      relay.setMaxLinksPerTenant(next.resource_links.max_per_tenant);
      uiResources.configure(next.ui_resources.tenants);
      const nextCatalogue = next.tool_access.required_catalogue;
      if (deepEqual(catalogue, nextCatalogue)) return;
      catalogue = nextCatalogue;
      windowEnds = catalogue ? services.clock.monotonic() + catalogue.retry_for_s * 1000 : 0;
      if (!warmed || closed || !catalogue) return;
      const required = missing().flatMap((id) =>
        services.groups.has(id) ? services.groups.memberIds(id) : [id],
      );
      void Promise.all(required.map(start)).then(() => retryRequired(FIRST_RETRY_MS));
    },
    close() {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      stopWatching();
      inputRounds.close();
      hub.close();
    },
  };
}

/**
 * The key `requestState` is signed with: one for every replica of the store, made by whichever
 * needs it first and kept there, so that a retry verifies on any replica.
 */
async function requestStateKey(services: AppServices): Promise<Buffer> {
  const made = randomBytes(32).toString("base64url");
  return Buffer.from(
    await services.repositories.sharedSecrets.obtain("request_state_key", made),
    "base64url",
  );
}
