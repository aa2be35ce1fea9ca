/** `GET /auth/principals` (docs/auth-admin.md): every principal holding a role, with its roles. */
export interface PrincipalsAnswer {
  principals: { principal_id: string; roles: { role_name: string; scope: string }[] }[];
  total: number;
}

/** A role as `/auth/roles/all` reads it. */
export interface Role {
  role_name: string;
  description: string;
  permissions: string[];
  permissions_count: number;
  builtin: boolean;
}

/** `GET /auth/keys?principal_id=`: never the key itself nor its hash. */
export interface KeysAnswer {
  principal_id: string | null;
  keys: {
    key_id: string;
    name: string;
    created_at: string;
    expires_at: string | null;
    last_used_at: string | null;
    revoked: boolean;
  }[];
  total: number;
  active: number;
}

/** `GET /auth/principals/roles?principal_id=`: the assignments with where they come from. */
export interface PrincipalRoles {
  principal_id: string;
  roles: {
    role_name: string;
    scope: string;
    assigned_by: string;
    assigned_at: string | null;
    source: "config" | "api";
  }[];
}
