import { afterEach, beforeEach, expect, it } from "vitest";
import type { RoleAssignment } from "../../../src/app/ports/role-assignment-repository.js";
import type { StoreRepositories } from "../../../src/app/ports/store-repositories.js";
import { BACKENDS, describeNow, describePostgres, openRepositories } from "../../support/backends.js";

const assignment = (
  principal_id: string,
  role_name: string,
  scope = "global",
  extra: Partial<RoleAssignment> = {},
) => ({
  principal_id,
  role_name,
  scope,
  assigned_by: "admin",
  assigned_at: 100,
  ...extra,
});

for (const backend of BACKENDS) {
  await (backend === "postgres" ? describePostgres : describeNow)(
    `RoleAssignmentRepository on ${backend}`,
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

      it("assigns once: a repeated assignment keeps the first actor and time", async () => {
        expect(await repos.roleAssignments.assign(assignment("alice", "viewer"))).toEqual({
          created: true,
          assignment: assignment("alice", "viewer"),
        });
        expect(
          await repos.roleAssignments.assign(
            assignment("alice", "viewer", "global", { assigned_by: "x", assigned_at: 999 }),
          ),
        ).toEqual({ created: false, assignment: assignment("alice", "viewer") });
        expect(await repos.roleAssignments.listByPrincipal("alice")).toEqual([assignment("alice", "viewer")]);
      });

      it("keeps assignments of the same role in different scopes apart", async () => {
        await repos.roleAssignments.assign(assignment("alice", "developer", "tenant:t2"));
        await repos.roleAssignments.assign(assignment("alice", "developer", "global"));
        await repos.roleAssignments.assign(assignment("alice", "admin", "tenant:t1"));
        const all = await repos.roleAssignments.listByPrincipal("alice");
        expect(all.map((a) => [a.role_name, a.scope])).toEqual([
          ["admin", "tenant:t1"],
          ["developer", "global"],
          ["developer", "tenant:t2"],
        ]);
        expect(await repos.roleAssignments.listByPrincipal("alice", "*")).toEqual(all);
        expect(
          (await repos.roleAssignments.listByPrincipal("alice", "tenant:t2")).map((a) => a.role_name),
        ).toEqual(["developer"]);
        expect(await repos.roleAssignments.listByPrincipal("alice", "tenant:none")).toEqual([]);
      });

      it("assigns concurrently without duplicates, exactly one call creating", async () => {
        const results = await Promise.all(
          Array.from({ length: 6 }, () => repos.roleAssignments.assign(assignment("bob", "viewer"))),
        );
        expect(results.filter((r) => r.created)).toHaveLength(1);
        expect(await repos.roleAssignments.listByPrincipal("bob")).toHaveLength(1);
      });

      it("revokes one assignment and says whether it existed", async () => {
        await repos.roleAssignments.assign(assignment("alice", "viewer", "global"));
        await repos.roleAssignments.assign(assignment("alice", "viewer", "tenant:t1"));
        expect(await repos.roleAssignments.revoke("alice", "viewer", "global")).toBe(true);
        expect(await repos.roleAssignments.revoke("alice", "viewer", "global")).toBe(false);
        expect((await repos.roleAssignments.listByPrincipal("alice")).map((a) => a.scope)).toEqual([
          "tenant:t1",
        ]);
      });

      it("lists every principal holding an assignment, ordered, each once", async () => {
        await repos.roleAssignments.assign(assignment("carol", "viewer"));
        await repos.roleAssignments.assign(assignment("alice", "viewer"));
        await repos.roleAssignments.assign(assignment("alice", "admin"));
        expect(await repos.roleAssignments.listPrincipals()).toEqual(["alice", "carol"]);
        await repos.roleAssignments.revoke("carol", "viewer", "global");
        expect(await repos.roleAssignments.listPrincipals()).toEqual(["alice"]);
      });

      it("removes every assignment of a deleted role", async () => {
        await repos.roleAssignments.assign(assignment("alice", "ops"));
        await repos.roleAssignments.assign(assignment("bob", "ops", "tenant:t1"));
        await repos.roleAssignments.assign(assignment("bob", "viewer"));
        expect(await repos.roleAssignments.revokeRole("ops")).toBe(2);
        expect(await repos.roleAssignments.listPrincipals()).toEqual(["bob"]);
        expect(await repos.roleAssignments.revokeRole("ops")).toBe(0);
      });
    },
  );
}
