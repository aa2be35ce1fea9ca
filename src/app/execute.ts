import type { z } from "zod";
import { type AdmitOptions, admitToRun } from "./admit.js";
import type { RequestContext } from "./context.js";
import type { Operation } from "./operation.js";
import type { AppServices } from "./services.js";
import { zodValidation } from "./validation.js";

/** How an edge calls an operation: what the request names, and whether it admitted the caller already. */
export type ExecuteOptions = AdmitOptions;

/**
 * The one pipeline every edge goes through: validate the input, admit the caller (`admit.ts`: the
 * decision, unless the edge made it for this operation before reading the input, then the
 * command-bus rate limit), run. Events are published by the fleet as state changes; with
 * `event_store.commit: before_answer` a command answers once they are committed, and is refused
 * (`StoreUnavailableError`) before it runs while the event store is failing.
 */
export async function execute<S extends z.ZodType, O>(
  services: AppServices,
  operation: Operation<S, O>,
  rawInput: unknown,
  ctx: RequestContext,
  options: ExecuteOptions = {},
): Promise<O> {
  const parsed = operation.input.safeParse(rawInput ?? {});
  if (!parsed.success) throw zodValidation(parsed.error);
  const admitted = await admitToRun(services, operation as Operation, parsed.data, ctx, options);
  const run = (): Promise<O> =>
    // With coordination, a follower hands a leader-only command to the fleet manager.
    operation.leaderOnly && services.leaderCommands
      ? services.leaderCommands.run(operation as Operation<never, O>, parsed.data, admitted)
      : operation.run(services, parsed.data, admitted);
  // A command's answer (gateway_call's included) waits for its events; a query records nothing.
  const commits = operation.kind === "command" ? services.commitBeforeAnswer : undefined;
  return commits ? commits.answer(run) : run();
}
