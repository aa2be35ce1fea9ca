/**
 * Registry of the process groups of live upstream children, so that nothing the gateway started
 * outlives it.
 *
 * Every child is spawned as the leader of its own process group (pgid = child pid); wrappers such
 * as `sh -c` or `npx` put their own children in that group too. Signalling `-pgid` reaches all of
 * them at once.
 *
 * Guaranteed: after `killAllProcessGroups()` every registered group has been sent SIGKILL, and once
 * `installExitGuard()` ran, that also happens on any `process.exit()` (the `exit` event runs
 * synchronously, so only synchronous work can happen there). Not guaranteed: a descendant that left
 * the group on its own (`setsid`, a double-forking daemon) is out of reach; and nothing runs on
 * SIGKILL of the gateway itself. No signal handlers are installed here: the CLI owns SIGTERM/SIGINT
 * and turns them into an orderly shutdown that ends in `process.exit()`.
 */

const groups = new Set<number>();
let exitGuardInstalled = false;

/** Records a live child's process group (its pid, since it was spawned detached). */
export function registerProcessGroup(pgid: number): void {
  groups.add(pgid);
}

/** Forgets a group once its leader has exited and the group was swept. */
export function unregisterProcessGroup(pgid: number): void {
  groups.delete(pgid);
}

/** The groups currently registered, for diagnostics and tests. */
export function registeredProcessGroups(): number[] {
  return [...groups];
}

/**
 * Sends `signal` to every member of the group. Returns false when the group no longer exists
 * (ESRCH) or cannot be signalled; never throws.
 */
export function signalProcessGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Sends SIGKILL to every registered group, synchronously, and clears the registry. */
export function killAllProcessGroups(): void {
  for (const pgid of groups) signalProcessGroup(pgid, "SIGKILL");
  groups.clear();
}

/** Installs, once, a `process.on('exit')` hook that calls `killAllProcessGroups()`. Idempotent. */
export function installExitGuard(): void {
  if (exitGuardInstalled) return;
  exitGuardInstalled = true;
  process.on("exit", killAllProcessGroups);
}
