import {
  ERROR_CATALOGUE,
  type FlatErrorType,
  GatewayError,
  isErrorType,
  RequestRejected,
} from "../../domain/errors.js";
import type { RequestContext } from "../context.js";
import type { Operation } from "../operation.js";
import type { Clock } from "../ports/clock.js";
import type { IdGenerator } from "../ports/id-generator.js";
import type {
  ForwardedCaller,
  LeaderCommand,
  LeaderCommandOutcome,
  LeaderCommandQueue,
} from "../ports/leader-command-queue.js";
import type { Logger } from "../ports/logger.js";
import type { AppServices, LeaderCommandRunner, OperationRef } from "../services.js";
import type { Leadership } from "./leadership.js";

/**
 * How often a waiting follower reads the outcome of its command. The leader claims every
 * `LEADER_COMMAND_POLL_MS` as well, so a forwarded command costs about one to two polls more than
 * a local one.
 */
export const OUTCOME_POLL_MS = 50;
/** A command no leader claimed within this long is taken back and refused as not runnable now. */
export const UNCLAIMED_TIMEOUT_MS = 15_000;
/** A claimed command that has not finished within this long is answered as still running. */
export const RUNNING_TIMEOUT_MS = 120_000;
/** Commands claimed per pass: the leader runs them one after another, oldest first. */
const CLAIM_BATCH = 20;

export interface LeaderCommandsDeps {
  queue: LeaderCommandQueue;
  leadership: Leadership;
  /** The management lease's name, checked by every claim. */
  lease: string;
  ids: IdGenerator;
  clock: Clock;
  logger: Logger;
  /** Every operation by name: the leader looks forwarded commands up here. */
  operations: ReadonlyMap<string, Operation>;
  services: () => AppServices;
  /** Test seams; the defaults are the constants above. */
  timing?: { outcomePollMs?: number; unclaimedTimeoutMs?: number; runningTimeoutMs?: number };
}

/**
 * Runs leader-only commands (`Operation.leaderOnly`) on the fleet manager, wherever they were asked.
 *
 * On the leader a command runs at once. On a follower it is written to the shared queue with the
 * caller as this replica authorized it, the leader claims and runs it (fenced by its lease term),
 * and the follower answers with the leader's outcome: the same result, or the same error type,
 * status and details. The caller sees no difference except a little latency.
 *
 * Guaranteed: a command is answered once; one that no leader claimed within
 * `UNCLAIMED_TIMEOUT_MS` is withdrawn before the refusal (409 `McpServerNotHereError`), so it never
 * runs later. Not guaranteed: exactly-once execution across a takeover (a term that ends while
 * running a command leaves it to the next term, which runs it again); leader-only operations are
 * written to be safe to repeat.
 */
export class LeaderCommands implements LeaderCommandRunner {
  private readonly timing: Required<NonNullable<LeaderCommandsDeps["timing"]>>;

  constructor(private readonly deps: LeaderCommandsDeps) {
    this.timing = {
      outcomePollMs: deps.timing?.outcomePollMs ?? OUTCOME_POLL_MS,
      unclaimedTimeoutMs: deps.timing?.unclaimedTimeoutMs ?? UNCLAIMED_TIMEOUT_MS,
      runningTimeoutMs: deps.timing?.runningTimeoutMs ?? RUNNING_TIMEOUT_MS,
    };
  }

  /** Runs `operation` here when this replica manages the fleet, otherwise on the replica that does. */
  async run<O>(operation: OperationRef<O>, input: unknown, ctx: RequestContext): Promise<O> {
    const { leadership, queue, ids, services } = this.deps;
    if (leadership.isLeader) return operation.run(services(), input as never, ctx);
    const commandId = ids.uuid();
    await queue.submit({
      command_id: commandId,
      operation: operation.name,
      input,
      caller: forwardedCaller(ctx),
      requested_by: leadership.holder,
    });
    const outcome = await this.awaitOutcome(commandId, operation.name, ctx.signal);
    return answer(outcome) as O;
  }

  /**
   * The leader's side: claims waiting commands under the current term and runs them in order.
   * Answers how many ran. A pass on a follower (or after the term ended) claims nothing.
   */
  async drain(): Promise<number> {
    const term = this.deps.leadership.term();
    if (!term) return 0;
    const claimed = await this.deps.queue.claim(
      { lease: this.deps.lease, holder: term.holder, generation: term.generation },
      CLAIM_BATCH,
    );
    for (const command of claimed) {
      const outcome = await this.runClaimed(command);
      const recorded = await this.deps.queue.complete(command.command_id, term.generation, outcome);
      if (!recorded) {
        this.deps.logger.warn(
          { command_id: command.command_id, operation: command.operation },
          "leader command outcome not recorded: the claim moved to a newer term",
        );
      }
    }
    return claimed.length;
  }

  private async runClaimed(command: LeaderCommand): Promise<LeaderCommandOutcome> {
    const operation = this.deps.operations.get(command.operation);
    if (!operation?.leaderOnly) {
      // A replica of another release asked for something this one does not run as leader-only.
      this.deps.logger.error(
        { operation: command.operation },
        "forwarded command names no leader-only operation",
      );
      return { kind: "internal" };
    }
    try {
      const parsed = operation.input.parse(command.input);
      const output = await operation.run(this.deps.services(), parsed, contextOf(command.caller));
      return { kind: "ok", output: output === undefined ? null : output };
    } catch (error) {
      return outcomeOf(error, this.deps.logger, command.operation);
    }
  }

  private async awaitOutcome(
    commandId: string,
    operation: string,
    signal: AbortSignal | undefined,
  ): Promise<LeaderCommandOutcome> {
    const { queue } = this.deps;
    const { outcomePollMs, unclaimedTimeoutMs, runningTimeoutMs } = this.timing;
    const started = this.deps.clock.monotonic();
    let claimed = false;
    for (;;) {
      const outcome = await queue.outcome(commandId);
      if (outcome) return outcome;
      const waited = this.deps.clock.monotonic() - started;
      // A caller gone while the leader runs the command stops waiting: its outcome has no reader.
      if (claimed && signal?.aborted) throw signal.reason;
      if (!claimed && (signal?.aborted || waited >= unclaimedTimeoutMs)) {
        if (await queue.withdraw(commandId)) {
          throw new GatewayError(
            "McpServerNotHereError",
            signal?.aborted
              ? `The ${operation} command was withdrawn before the fleet manager took it`
              : `No fleet manager took the ${operation} command within ${unclaimedTimeoutMs / 1000} s; nothing was done, retry later`,
            { action: operation, leader_instance_id: null },
          );
        }
        // Claimed meanwhile: the leader runs it, so its outcome is worth waiting for.
        claimed = true;
      }
      if (waited >= runningTimeoutMs) {
        throw new GatewayError(
          "McpServerNotHereError",
          `The fleet manager has not finished the ${operation} command within ${runningTimeoutMs / 1000} s; it may still complete`,
          { action: operation, command_id: commandId },
        );
      }
      await delay(outcomePollMs);
    }
  }
}

function forwardedCaller(ctx: RequestContext): ForwardedCaller {
  return {
    principal: { ...ctx.principal, roles: [...ctx.principal.roles] },
    authenticated: ctx.authenticated,
    channel: ctx.channel,
    ...(ctx.confinedTo !== undefined && { confinedTo: ctx.confinedTo }),
    ...(ctx.clientAddress !== undefined && { clientAddress: ctx.clientAddress }),
    ...(ctx.sessionId !== undefined && { sessionId: ctx.sessionId }),
  };
}

function contextOf(caller: ForwardedCaller): RequestContext {
  return {
    principal: caller.principal as RequestContext["principal"],
    authenticated: caller.authenticated,
    channel: caller.channel as RequestContext["channel"],
    ...(caller.confinedTo !== undefined && { confinedTo: caller.confinedTo }),
    ...(caller.clientAddress !== undefined && { clientAddress: caller.clientAddress }),
    ...(caller.sessionId !== undefined && { sessionId: caller.sessionId }),
  };
}

/** The outcome of a failed command: errors the caller may see keep their shape, others do not leave. */
function outcomeOf(error: unknown, logger: Logger, operation: string): LeaderCommandOutcome {
  // A handler check keeps the outcome older replicas read it from.
  if (error instanceof RequestRejected) {
    return {
      kind: "rejected",
      status: error.status,
      code: error.code,
      detail: error.detail,
      extra: error.extra,
    };
  }
  if (error instanceof GatewayError) {
    return {
      kind: "gateway_error",
      type: error.type,
      message: error.message,
      details: error.details,
      status: error.status,
      mcp: error.mcp,
      ...(error.subject !== undefined && { subject: error.subject }),
    };
  }
  logger.error({ err: String(error), operation }, "forwarded command failed");
  return { kind: "internal" };
}

/** Turns an outcome back into the result or the error the operation gave on the leader. */
function answer(outcome: LeaderCommandOutcome): unknown {
  switch (outcome.kind) {
    case "ok":
      return outcome.output;
    case "gateway_error":
      if (!isErrorType(outcome.type)) break;
      throw new GatewayError(outcome.type, outcome.message, outcome.details, {
        status: outcome.status,
        mcp: outcome.mcp,
        subject: outcome.subject,
      });
    case "rejected": {
      const { status, code, detail, extra } = outcome;
      if (!isErrorType(code) || ERROR_CATALOGUE[code].rest !== "flat") break;
      throw new RequestRejected(status, code as FlatErrorType, detail, extra);
    }
    case "internal":
      break;
  }
  // An error this replica's catalogue does not know (a newer leader's) names nothing either.
  throw new Error("a forwarded command failed on the fleet manager");
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
