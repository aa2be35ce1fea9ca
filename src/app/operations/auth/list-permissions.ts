import { z } from "zod";
import { PERMISSION_MANIFEST } from "../../../domain/auth/permission-manifest.js";
import { defineAuthOperation } from "./auth-operation.js";

/** `GET /auth/permissions`: the static manifest `{permissions: [{resource_type, actions}]}`. */
export const listPermissions = defineAuthOperation({
  name: "list-permissions",
  kind: "query",
  summary: "The permission manifest: resource types and their actions.",
  input: z.strictObject({}),
  async run() {
    return {
      permissions: PERMISSION_MANIFEST.map(({ resource_type, actions }) => ({
        resource_type,
        actions: [...actions],
      })),
    };
  },
});
