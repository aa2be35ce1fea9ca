import { assignRole } from "./assign-role.js";
import { checkPermission } from "./check-permission.js";
import { createApiKey } from "./create-api-key.js";
import { createRole } from "./create-role.js";
import { deleteRole } from "./delete-role.js";
import { deleteToolPolicy } from "./delete-tool-policy.js";
import { getRole } from "./get-role.js";
import { getToolPolicy } from "./get-tool-policy.js";
import { listApiKeys } from "./list-api-keys.js";
import { listPermissions } from "./list-permissions.js";
import { listPrincipals } from "./list-principals.js";
import { listAllRoles, listBuiltinRoles } from "./list-roles.js";
import { principalRoles } from "./principal-roles.js";
import { revokeApiKey } from "./revoke-api-key.js";
import { revokeRole } from "./revoke-role.js";
import { setToolPolicy } from "./set-tool-policy.js";
import { updateRole } from "./update-role.js";

/**
 * The auth management operations (spec 1 "Auth management"), by name. Each answers 503 while
 * authentication is off and runs for a global admin only (`defineAuthOperation`).
 */
export const AUTH_OPERATIONS = {
  createApiKey,
  revokeApiKey,
  listApiKeys,
  listAllRoles,
  listBuiltinRoles,
  getRole,
  createRole,
  updateRole,
  deleteRole,
  assignRole,
  revokeRole,
  listPrincipals,
  principalRoles,
  listPermissions,
  checkPermission,
  getToolPolicy,
  setToolPolicy,
  deleteToolPolicy,
} as const;
