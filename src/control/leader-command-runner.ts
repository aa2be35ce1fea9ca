import type { LeaderCommands } from "../app/coordination/leader-commands.js";
import type { LeaderCommandQueue } from "../app/ports/leader-command-queue.js";
import type { Logger } from "../app/ports/logger.js";
import { Periodic } from "./periodic.js";
import type { Runnable } from "./supervisor.js";

/**
 * How often the fleet manager looks for commands followers handed over. One indexed read that an
 * empty queue answers with no rows; 100 ms keeps a forwarded command within about a tenth of a
 * second of a local one, at ten small queries per second on the leader only.
 */
export const LEADER_COMMAND_POLL_MS = 100;
/** Answered commands are kept this long (for a follower still reading its outcome), then deleted. */
const KEEP_ANSWERED_S = 3600;
/** The sweep of old commands runs once per this many polls (about a minute). */
const PURGE_EVERY_POLLS = 600;

/** The leader's loop over the command queue: leader-only work, started on election. */
export function leaderCommandRunner(
  commands: LeaderCommands,
  queue: LeaderCommandQueue,
  deps: { logger: Logger; now: () => number },
  intervalMs = LEADER_COMMAND_POLL_MS,
): Runnable {
  let polls = 0;
  const loop = new Periodic(
    intervalMs,
    async () => {
      await commands.drain();
      polls += 1;
      if (polls % PURGE_EVERY_POLLS === 0) await queue.purge(deps.now() / 1000 - KEEP_ANSWERED_S);
    },
    // Nothing is lost: unclaimed commands stay in the queue for the next pass.
    (error) => deps.logger.error({ err: String(error) }, "leader command queue not readable; retrying"),
  );
  return { name: "leader-commands", start: () => loop.start(), stop: () => loop.stop() };
}
