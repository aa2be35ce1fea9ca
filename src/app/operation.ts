import type { z } from "zod";
import type { GatewayError } from "../domain/errors.js";
import type { RequestContext } from "./context.js";
import type { AppServices } from "./services.js";

/** `resource:action` or `resource:action:id` (spec 1 §2). */
export type Permission = `${string}:${string}`;

/**
 * One command or query. Edges never call `run` directly: they go through `execute`, which
 * validates the input, admits the caller (`admit.ts`) and records what happened.
 */
export interface Operation<S extends z.ZodType = z.ZodType, O = unknown> {
  readonly name: string;
  readonly kind: "command" | "query";
  readonly summary: string;
  readonly input: S;
  /** Every permission listed is required; empty means any authenticated principal. */
  readonly permissions: readonly Permission[];
  /**
   * Permissions this input needs besides `permissions` (an update that sets what a server runs),
   * checked by `execute` with the others.
   */
  permissionsFor?(input: z.output<S>): readonly Permission[];
  /**
   * A grant held only at tenant scope may pass, confining the caller to that tenant
   * (`RequestContext.confinedTo`); otherwise a global grant is needed (spec 2 §5).
   */
  readonly tenantAware?: boolean;
  /**
   * A grant of `permissions` for some ids only (`tool:invoke:math`) admits the caller, with
   * `RequestContext.perResource` set: `run` checks each resource it acts on (`tool:invoke:<id>`).
   */
  readonly checkedPerResource?: boolean;
  /**
   * Only the admin role at global scope is admitted (the `/auth` management operations, spec 2 §5):
   * no other role passes, however wide its grants; `permissions` is then empty.
   */
  readonly adminOnly?: boolean;
  /** Never charged the command-bus rate limit, on any edge (the front door's relay, spec 2 §8). */
  readonly rateLimitExempt?: boolean;
  /**
   * Only the fleet manager (the management lease holder) runs it: with `coordination` configured,
   * `execute` on a follower hands the authorized command to the leader and answers with the
   * leader's result (see `LeaderCommands`). Without coordination it runs where it is asked.
   */
  readonly leaderOnly?: boolean;
  run(services: AppServices, input: z.output<S>, ctx: RequestContext): Promise<O>;
  /**
   * Told when the caller is refused before `run` (authorization, rate limit): an operation whose
   * input names tool calls records them as refused invocations (audit `denied`).
   */
  recordRefusal?(services: AppServices, input: z.output<S>, ctx: RequestContext, error: GatewayError): void;
}

export function defineOperation<S extends z.ZodType, O>(operation: Operation<S, O>): Operation<S, O> {
  return operation;
}
