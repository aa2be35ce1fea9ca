import { afterEach, beforeEach, expect, it } from "vitest";
import type { McpSessionRecord } from "../../../src/app/ports/mcp-session-repository.js";
import type { StoreRepositories } from "../../../src/app/ports/store-repositories.js";
import { BACKENDS, describeNow, describePostgres, openRepositories } from "../../support/backends.js";

const session = (session_id: string, extra: Partial<McpSessionRecord> = {}): McpSessionRecord => ({
  session_id,
  principal_id: "alice",
  protocol_version: "2025-06-18",
  client_info: { name: "client", version: "1.0.0" },
  client_capabilities: { roots: { listChanged: true }, sampling: {} },
  created_at: 100,
  last_seen_at: 100,
  ended_at: null,
  ...extra,
});

for (const backend of BACKENDS) {
  await (backend === "postgres" ? describePostgres : describeNow)(
    `McpSessionRepository on ${backend}`,
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

      it("is shared between replicas only on PostgreSQL", () => {
        expect(repos.mcpSessions.shared).toBe(backend === "postgres");
      });

      it("stores a session and reads it back whole", async () => {
        expect(await repos.mcpSessions.get("s-1")).toBeUndefined();
        await repos.mcpSessions.create(session("s-1"));
        expect(await repos.mcpSessions.get("s-1")).toEqual(session("s-1"));
      });

      it("keeps the first record when a session id is created again", async () => {
        await repos.mcpSessions.create(session("s-1"));
        await repos.mcpSessions.create(session("s-1", { principal_id: "mallory" }));
        expect((await repos.mcpSessions.get("s-1"))?.principal_id).toBe("alice");
      });

      it("moves last seen forward only, and never on an ended session", async () => {
        await repos.mcpSessions.create(session("s-1"));
        await repos.mcpSessions.create(session("s-2"));
        await repos.mcpSessions.touch([
          { session_id: "s-1", last_seen_at: 150.5 },
          { session_id: "s-2", last_seen_at: 120 },
          { session_id: "unknown", last_seen_at: 500 },
        ]);
        await repos.mcpSessions.touch([{ session_id: "s-1", last_seen_at: 130 }]);
        expect((await repos.mcpSessions.get("s-1"))?.last_seen_at).toBe(150.5);
        expect((await repos.mcpSessions.get("s-2"))?.last_seen_at).toBe(120);
        await repos.mcpSessions.end("s-2", 200);
        await repos.mcpSessions.touch([{ session_id: "s-2", last_seen_at: 300 }]);
        expect(await repos.mcpSessions.get("s-2")).toEqual(
          session("s-2", { last_seen_at: 120, ended_at: 200 }),
        );
        expect(await repos.mcpSessions.get("unknown")).toBeUndefined();
      });

      it("ends a session once and says whether it was open", async () => {
        await repos.mcpSessions.create(session("s-1"));
        expect(await repos.mcpSessions.end("s-1", 200)).toBe(true);
        expect(await repos.mcpSessions.end("s-1", 300)).toBe(false);
        expect(await repos.mcpSessions.end("unknown", 300)).toBe(false);
        expect((await repos.mcpSessions.get("s-1"))?.ended_at).toBe(200);
      });

      it("purges sessions last seen or ended before a time", async () => {
        await repos.mcpSessions.create(session("old", { last_seen_at: 50 }));
        await repos.mcpSessions.create(session("ended", { last_seen_at: 150 }));
        await repos.mcpSessions.end("ended", 90);
        await repos.mcpSessions.create(session("live", { last_seen_at: 150 }));
        expect(await repos.mcpSessions.purge(100)).toBe(2);
        expect(await repos.mcpSessions.get("old")).toBeUndefined();
        expect(await repos.mcpSessions.get("ended")).toBeUndefined();
        expect(await repos.mcpSessions.get("live")).toEqual(session("live", { last_seen_at: 150 }));
      });
    },
  );
}
