import { GatewayError } from "../../domain/errors.js";
import type { DomainEventPayload } from "../../domain/events.js";
import {
  type GroupView,
  pick,
  rebalance,
  recordHealth,
  recordLostCall,
  recordOutcome,
  recordStart,
  sync,
  type Transition,
  view,
} from "../../domain/group/group-model.js";
import type { GroupInput, GroupSnapshot } from "../../domain/group/group-snapshot.js";
import type { MemberStatuses } from "../../domain/group/member-status.js";
import {
  addMember,
  createGroup,
  hasMember,
  type Reconfigured,
  removeMember,
  updateSettings,
} from "../../domain/group/membership.js";
import type { ToolPolicy } from "../../domain/policy/tool-policy.js";
import type { ServerState } from "../../domain/server/lifecycle.js";
import type { EventBus } from "../event-bus.js";
import type { Fleet } from "../fleet/fleet.js";
import type { ManagedServer } from "../fleet/managed-server.js";
import type { GroupConfigRepository } from "../ports/group-config-repository.js";
import type { Logger } from "../ports/logger.js";

export interface ManagedGroup {
  snapshot: GroupSnapshot;
  readonly source: "config" | "api";
  readonly auto_start: boolean;
  /** The group-level `tools:` policy. */
  readonly policy?: ToolPolicy;
  /** Member-level `tools:` policies, by member id. */
  readonly memberPolicies: ReadonlyMap<string, ToolPolicy>;
}

export interface GroupPolicies {
  group?: ToolPolicy;
  members?: ReadonlyMap<string, ToolPolicy>;
}

/**
 * A group id that names nothing. On MCP it is a failed run (`unknown_mcp_server: <id>`, ValueError;
 * spec 2 §4's table), not the refusal of an unknown `mcp_server` argument: a tool that names a
 * group (`gateway_group_rebalance`) ran its lookup.
 */
export const groupNotFound = (id: string) =>
  new GatewayError("McpServerNotFoundError", `Group not found: ${id}`, null, {
    subject: id,
    mcp: "ran_and_failed",
  });

/**
 * The groups of this replica: their pure snapshots (domain/group) driven by what happens to their
 * members. Call outcomes are reported by the caller; health checks, starts and state changes of
 * members arrive as events on the bus.
 */
export class GroupService {
  private readonly groups = new Map<string, ManagedGroup>();
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly deps: { fleet: Fleet; bus: EventBus; logger: Logger; random: () => number }) {}

  /** Follows member health checks, starts and state changes. */
  start(): void {
    this.unsubscribe ??= this.deps.bus.subscribe((event) => {
      if (!("mcp_server_id" in event)) return;
      const member = event.mcp_server_id;
      if (event.type === "HealthCheckPassed" || event.type === "HealthCheckFailed") {
        const passed = event.type === "HealthCheckPassed";
        this.forGroupsOf(member, (snapshot, statuses) => recordHealth(snapshot, member, passed, statuses));
      } else if (event.type === "McpServerDied" && event.reason === "crashed") {
        // A crash is seen at once (process exit): it counts as a failed check of the member.
        this.forGroupsOf(member, (snapshot, statuses) => recordHealth(snapshot, member, false, statuses));
      } else if (event.type === "McpServerStarted") {
        this.forGroupsOf(member, (snapshot, statuses) => recordStart(snapshot, member, true, statuses));
      } else if (event.type === "ProviderStateChanged") {
        this.forGroupsOf(member, (snapshot, statuses) => sync(snapshot, statuses));
      }
    });
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  list(): [string, ManagedGroup][] {
    return [...this.groups.entries()];
  }

  has(id: string): boolean {
    return this.groups.has(id);
  }

  require(id: string): ManagedGroup {
    const group = this.groups.get(id);
    if (!group) throw groupNotFound(id);
    return group;
  }

  register(
    input: GroupInput,
    source: "config" | "api",
    auto_start: boolean,
    policies: GroupPolicies = {},
  ): ManagedGroup {
    const { snapshot, warnings } = createGroup(input, this.statuses());
    for (const warning of warnings) this.deps.logger.warn({ group_id: input.group_id }, warning);
    const group: ManagedGroup = {
      snapshot,
      source,
      auto_start,
      ...(policies.group && { policy: policies.group }),
      memberPolicies: policies.members ?? new Map(),
    };
    this.groups.set(input.group_id, group);
    return group;
  }

  remove(id: string): void {
    this.require(id);
    this.groups.delete(id);
  }

  view(id: string): GroupView {
    const { snapshot } = this.require(id);
    return view(snapshot, this.statusesOf(snapshot));
  }

  views(): GroupView[] {
    return [...this.groups.values()].map((group) => view(group.snapshot, this.statusesOf(group.snapshot)));
  }

  /** Member ids of a group, in declaration order. */
  memberIds(id: string): string[] {
    return this.require(id).snapshot.members.map((member) => member.id);
  }

  /**
   * The member a call goes to (among the `eligible` ones when any is), or the refusal:
   * CircuitBreakerOpen, or no member available.
   */
  route(id: string, tenant: string | null, eligible?: (memberId: string) => boolean): ManagedServer {
    const group = this.require(id);
    const result = pick(group.snapshot, {
      ...(tenant !== null && { tenant }),
      ...(eligible && { eligible }),
      random: this.deps.random,
      memberStates: this.statusesOf(group.snapshot),
      inFlight: new Map(group.snapshot.members.map((member) => [member.id, this.callsAt(member.id)])),
    });
    group.snapshot = result.snapshot;
    if ("refused" in result) {
      if (result.refused === "circuit_open") {
        throw new GatewayError("CircuitBreakerOpen", "Circuit breaker open (too many consecutive failures)", {
          group_id: id,
        });
      }
      throw new GatewayError("NoAvailableMemberError", `No available member in group '${id}'`, {
        group_id: id,
      });
    }
    return this.deps.fleet.require(result.member_id);
  }

  /** Calls in progress at a member, counting those still being admitted after routing. */
  private callsAt(memberId: string): number {
    const server = this.deps.fleet.get(memberId);
    return server ? server.inFlight + server.admitting : 0;
  }

  /** Reports a call lost with its member's connection: a failed call for the circuit only. */
  recordLostCall(id: string): void {
    if (!this.groups.has(id)) return;
    this.apply(id, (snapshot, statuses) => recordLostCall(snapshot, statuses));
  }

  /** Reports how a call routed to `member` ended. */
  recordCall(id: string, member: string, success: boolean): void {
    if (!this.groups.has(id)) return;
    this.apply(id, (snapshot, statuses) => recordOutcome(snapshot, member, success, statuses));
  }

  /** Re-checks running members, then re-derives rotation and the circuit (spec 1 §3). */
  async rebalance(id: string): Promise<GroupView> {
    const { fleet } = this.deps;
    const members = this.memberIds(id)
      .map((memberId) => fleet.get(memberId))
      .filter((server): server is ManagedServer => server?.connection != null);
    await Promise.all(members.map((server) => fleet.checkHealth(server)));
    this.apply(id, (snapshot, statuses) => rebalance(snapshot, statuses));
    return this.view(id);
  }

  /** Starts every member not dead; failures are reported per member. */
  async startMembers(id: string): Promise<{ started: string[]; failed: { id: string; error: string }[] }> {
    const started: string[] = [];
    const failed: { id: string; error: string }[] = [];
    await Promise.all(
      this.memberIds(id).map(async (memberId) => {
        const server = this.deps.fleet.get(memberId);
        if (!server) return failed.push({ id: memberId, error: "McpServer not found" });
        try {
          await this.deps.fleet.start(server, true);
          started.push(memberId);
        } catch (error) {
          this.apply(id, (snapshot, statuses) => recordStart(snapshot, memberId, false, statuses));
          failed.push({ id: memberId, error: (error as Error).message });
        }
      }),
    );
    return { started, failed };
  }

  async stopMembers(id: string, reason: string): Promise<void> {
    await Promise.all(
      this.memberIds(id).map(async (memberId) => {
        const server = this.deps.fleet.get(memberId);
        if (server) await this.deps.fleet.stopServer(server, reason);
      }),
    );
  }

  updateSettings(id: string, patch: { strategy?: string; min_healthy?: number; description?: string }): void {
    this.reconfigure(id, (snapshot, statuses) => updateSettings(snapshot, patch, statuses));
  }

  addMember(id: string, member: { id: string; weight: number; priority: number }): void {
    this.reconfigure(id, (snapshot, statuses) => addMember(snapshot, member, statuses));
  }

  removeMember(id: string, memberId: string): boolean {
    const group = this.require(id);
    if (!hasMember(group.snapshot, memberId)) return false;
    this.reconfigure(id, (snapshot, statuses) => removeMember(snapshot, memberId, statuses));
    return true;
  }

  /**
   * Takes a server out of group `id` and stores the group as it is then (a group made through
   * REST); false when it was no member.
   */
  async dropMember(id: string, memberId: string, store: GroupConfigRepository, at: number): Promise<boolean> {
    if (!this.removeMember(id, memberId)) return false;
    await this.persist(id, store, at);
    return true;
  }

  /**
   * A group created through REST as it would be created again: settings and members, not the
   * counters (rotation and the circuit start afresh after a restart).
   */
  async persist(id: string, store: GroupConfigRepository, at: number): Promise<void> {
    const group = this.require(id);
    if (group.source !== "api") return;
    const { settings, members } = group.snapshot;
    await store.save(
      {
        group_id: id,
        description: settings.description,
        strategy: settings.strategy,
        min_healthy: settings.min_healthy,
        health: {
          unhealthy_threshold: settings.unhealthy_threshold,
          healthy_threshold: settings.healthy_threshold,
        },
        circuit_breaker: { failure_threshold: settings.failure_threshold },
        members: members.map(({ id: member, weight, priority }) => ({ id: member, weight, priority })),
      },
      at,
    );
    this.deps.bus.publish([{ type: "GroupConfigChanged", group_id: id, change: "saved" }]);
  }

  /** The policies a call through the group to `member` passes, besides the member server's own. */
  policiesFor(id: string, member: string): (ToolPolicy | undefined)[] {
    const group = this.require(id);
    return [group.policy, group.memberPolicies.get(member)];
  }

  /** Ids of the groups a server is a member of. */
  groupsOf(member: string): string[] {
    // A loop, not array methods: asked on every tool call of the front door.
    const ids: string[] = [];
    for (const [id, group] of this.groups) if (hasMember(group.snapshot, member)) ids.push(id);
    return ids;
  }

  private forGroupsOf(
    member: string,
    change: (snapshot: GroupSnapshot, statuses: MemberStatuses) => Transition,
  ): void {
    for (const id of this.groupsOf(member)) this.apply(id, change);
  }

  private reconfigure(
    id: string,
    change: (snapshot: GroupSnapshot, statuses: MemberStatuses) => Reconfigured,
  ): void {
    const group = this.require(id);
    const result = change(group.snapshot, this.statuses());
    for (const warning of result.warnings) this.deps.logger.warn({ group_id: id }, warning);
    group.snapshot = result.snapshot;
    this.publish(result.events);
  }

  private apply(id: string, change: (snapshot: GroupSnapshot, statuses: MemberStatuses) => Transition): void {
    const group = this.groups.get(id);
    if (!group) return;
    const result = change(group.snapshot, this.statusesOf(group.snapshot));
    group.snapshot = result.snapshot;
    this.publish(result.events);
  }

  private publish(events: readonly DomainEventPayload[]): void {
    if (events.length > 0) this.deps.bus.publish(events);
  }

  /**
   * States of a group's members only: this runs on every call through the group, so it must not
   * walk the whole fleet. A member missing from the fleet is absent (read as dead).
   */
  private statusesOf(snapshot: GroupSnapshot): MemberStatuses {
    const statuses = new Map<string, { state: ServerState; blocked: boolean }>();
    for (const member of snapshot.members) {
      const server = this.deps.fleet.get(member.id);
      if (server)
        statuses.set(member.id, { state: server.lifecycle.state, blocked: server.lifecycle.blocked });
    }
    return statuses;
  }

  /** Member states as the fleet knows them now, for changes that may add members. */
  private statuses(): MemberStatuses {
    return new Map(
      this.deps.fleet
        .list()
        .map((server) => [server.id, { state: server.lifecycle.state, blocked: server.lifecycle.blocked }]),
    );
  }
}
