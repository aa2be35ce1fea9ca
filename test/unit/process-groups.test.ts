import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import {
  installExitGuard,
  killAllProcessGroups,
  registeredProcessGroups,
  registerProcessGroup,
  signalProcessGroup,
  unregisterProcessGroup,
} from "../../src/adapters/upstream/subprocess/process-groups.js";

async function startGroupLeader(): Promise<ChildProcess & { pid: number }> {
  const child = spawn("sleep", ["600"], { detached: true, stdio: "ignore" });
  await once(child, "spawn");
  return child as ChildProcess & { pid: number };
}

describe("process group registry", () => {
  it("killAllProcessGroups() sends SIGKILL to every registered group and forgets them", async () => {
    const leaders = [await startGroupLeader(), await startGroupLeader()];
    for (const leader of leaders) registerProcessGroup(leader.pid);
    const exits = leaders.map((leader) => once(leader, "exit"));
    killAllProcessGroups();
    for (const [, signal] of await Promise.all(exits)) expect(signal).toBe("SIGKILL");
    expect(registeredProcessGroups()).toEqual([]);
  });

  it("leaves an unregistered group alone", async () => {
    const leader = await startGroupLeader();
    registerProcessGroup(leader.pid);
    unregisterProcessGroup(leader.pid);
    killAllProcessGroups();
    expect(leader.exitCode).toBeNull();
    expect(signalProcessGroup(leader.pid, "SIGKILL")).toBe(true);
    await once(leader, "exit");
  });

  it("signalProcessGroup() reports a group that no longer exists instead of throwing", async () => {
    const leader = await startGroupLeader();
    leader.kill("SIGKILL");
    await once(leader, "exit");
    expect(signalProcessGroup(leader.pid, "SIGTERM")).toBe(false);
  });

  it("installExitGuard() adds one exit hook however often it is called", () => {
    const before = process.listenerCount("exit");
    installExitGuard();
    installExitGuard();
    expect(process.listenerCount("exit")).toBeLessThanOrEqual(before + 1);
    expect(process.listeners("exit")).toContain(killAllProcessGroups);
  });
});
