import { afterEach, beforeEach, expect, it } from "vitest";
import type { StoreRepositories } from "../../../src/app/ports/store-repositories.js";
import type { SuspendedSession } from "../../../src/app/ports/suspended-session-repository.js";
import { BACKENDS, describeNow, describePostgres, openRepositories } from "../../support/backends.js";

const suspension = (session_id: string, extra: Partial<SuspendedSession> = {}): SuspendedSession => ({
  session_id,
  reason: "abuse",
  suspended_by: "admin",
  replica: "replica-a",
  suspended_at: 100,
  ...extra,
});

for (const backend of BACKENDS) {
  await (backend === "postgres" ? describePostgres : describeNow)(
    `SuspendedSessionRepository on ${backend}`,
    () => {
      let repos: StoreRepositories;
      let close: (() => Promise<void>) | undefined;
      beforeEach(async () => {
        ({ repos, close } = await openRepositories(backend));
      });
      afterEach(async () => {
        await close?.();
        close = undefined;
      });

      it("suspends a session and reports it suspended", async () => {
        expect(await repos.suspendedSessions.isSuspended("sess-1")).toBe(false);
        await repos.suspendedSessions.suspend(suspension("sess-1"));
        expect(await repos.suspendedSessions.isSuspended("sess-1")).toBe(true);
        expect(await repos.suspendedSessions.get("sess-1")).toEqual(suspension("sess-1"));
      });

      it("replaces the record when a suspended session is suspended again", async () => {
        await repos.suspendedSessions.suspend(suspension("sess-1"));
        await repos.suspendedSessions.suspend(
          suspension("sess-1", { reason: "again", replica: "replica-b", suspended_at: 200 }),
        );
        expect(await repos.suspendedSessions.list()).toEqual([
          suspension("sess-1", { reason: "again", replica: "replica-b", suspended_at: 200 }),
        ]);
      });

      it("resumes a session and says whether it was suspended", async () => {
        await repos.suspendedSessions.suspend(suspension("sess-1"));
        expect(await repos.suspendedSessions.resume("sess-1")).toBe(true);
        expect(await repos.suspendedSessions.resume("sess-1")).toBe(false);
        expect(await repos.suspendedSessions.isSuspended("sess-1")).toBe(false);
        expect(await repos.suspendedSessions.get("sess-1")).toBeUndefined();
      });

      it("lists suspensions oldest first", async () => {
        await repos.suspendedSessions.suspend(suspension("b", { suspended_at: 20 }));
        await repos.suspendedSessions.suspend(suspension("c", { suspended_at: 10 }));
        await repos.suspendedSessions.suspend(suspension("a", { suspended_at: 20 }));
        expect((await repos.suspendedSessions.list()).map((s) => s.session_id)).toEqual(["c", "a", "b"]);
      });
    },
  );
}
