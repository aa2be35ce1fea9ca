import { afterEach, beforeEach, expect, it } from "vitest";
import type { StoreRepositories } from "../../../src/app/ports/store-repositories.js";
import { BACKENDS, describeNow, describePostgres, openRepositories } from "../../support/backends.js";

const role = (role_name: string, permissions: string[] = ["mcp_servers:read"]) => ({
  role_name,
  description: `the ${role_name} role`,
  permissions,
  created_at: 100,
  created_by: "admin",
});

for (const backend of BACKENDS) {
  await (backend === "postgres" ? describePostgres : describeNow)(`RoleRepository on ${backend}`, () => {
    let repos: StoreRepositories;
    let close: (() => Promise<void>) | undefined;
    beforeEach(async () => {
      ({ repos, close } = await openRepositories(backend));
    });
    afterEach(async () => {
      await close?.();
      close = undefined;
    });

    it("creates a role once and reads it back with its permissions in order", async () => {
      expect(await repos.roles.create(role("ops", ["tool:invoke", "mcp_servers:read"]))).toBe(true);
      expect(await repos.roles.create(role("ops", ["*:*"]))).toBe(false);
      expect(await repos.roles.get("ops")).toEqual({
        ...role("ops", ["tool:invoke", "mcp_servers:read"]),
        updated_at: 100,
      });
      expect(await repos.roles.get("nope")).toBeUndefined();
    });

    it("lists roles ordered by name", async () => {
      for (const name of ["ops", "billing", "auditors"]) await repos.roles.create(role(name));
      expect((await repos.roles.list()).map((r) => r.role_name)).toEqual(["auditors", "billing", "ops"]);
    });

    it("updates only the given fields, replacing the permission list", async () => {
      await repos.roles.create(role("ops", ["a:b", "c:d"]));
      expect(await repos.roles.update("ops", { permissions: ["e:f"], updated_at: 200 })).toMatchObject({
        description: "the ops role",
        permissions: ["e:f"],
        created_at: 100,
        updated_at: 200,
      });
      expect(await repos.roles.update("ops", { description: "new", updated_at: 300 })).toMatchObject({
        description: "new",
        permissions: ["e:f"],
        updated_at: 300,
      });
      expect(await repos.roles.update("ghost", { description: "x", updated_at: 1 })).toBeUndefined();
    });

    it("deletes a role and says whether one existed", async () => {
      await repos.roles.create(role("ops"));
      expect(await repos.roles.delete("ops")).toBe(true);
      expect(await repos.roles.delete("ops")).toBe(false);
      expect(await repos.roles.list()).toEqual([]);
    });
  });
}
