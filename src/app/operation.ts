import type { z } from "zod";
import type { RequestContext } from "./context.js";
import type { AppServices } from "./services.js";

/** `resource:action` or `resource:action:id` (spec 1 §2). */
export type Permission = `${string}:${string}`;

/**
 * One command or query. Edges never call `run` directly: they go through `execute`, which
 * validates the input, authorizes the caller and records what happened.
 */
export interface Operation<S extends z.ZodType = z.ZodType, O = unknown> {
  readonly name: string;
  readonly kind: "command" | "query";
  readonly summary: string;
  readonly input: S;
  /** Every permission listed is required; empty means any authenticated principal. */
  readonly permissions: readonly Permission[];
  run(services: AppServices, input: z.output<S>, ctx: RequestContext): Promise<O>;
}

export function defineOperation<S extends z.ZodType, O>(operation: Operation<S, O>): Operation<S, O> {
  return operation;
}
