import { useState } from "preact/hooks";
import { useApiGet } from "../components/data.js";
import { ErrorNote, Section } from "../components/ui.js";
import { navigate, type Route } from "../router.js";
import { useCan, useSession } from "../session.js";
import { CreateKey } from "./access/create-key.js";
import { L7Policies } from "./access/l7-policies.js";
import { PrincipalDetail } from "./access/principal.js";
import { PrincipalList, RoleList } from "./access/principals.js";
import { ToolPolicies } from "./access/tool-policies.js";
import type { PrincipalsAnswer, Role } from "./access/types.js";

/**
 * Access control: principals with their roles and API keys (`#/access/<principal>` opens one), the
 * roles, tool access policies (all under `/auth`, the admin's alone) and servers' L7 egress policies.
 */
export function AccessPage({ route }: { route: Route }) {
  const session = useSession();
  const can = useCan();
  const selected = route.parts[1] ?? "";
  // With authentication off every /auth route answers 503: nothing is asked, the page says why.
  const auth = session.auth_enabled;
  const principals = useApiGet<PrincipalsAnswer>(
    auth && can("GET /auth/principals") ? "/auth/principals" : null,
  );
  const roles = useApiGet<{ roles: Role[] }>(auth && can("GET /auth/roles/all") ? "/auth/roles/all" : null);
  const [round, setRound] = useState(0);
  const known = principals.data?.principals.map((principal) => principal.principal_id) ?? [];
  return (
    <div>
      {!auth && (
        <Section key="off" title="Access control is off">
          <p>
            Authentication is off on this gateway (<code>auth.enabled: false</code>), so there are no API
            keys, roles or tool access policies to manage: the gateway answers 503 to every{" "}
            <code>/api/auth</code> route. Turn authentication on in the configuration file and restart the
            gateway to manage them here. L7 egress policies, below, apply either way.
          </p>
        </Section>
      )}
      {auth && can("GET /auth/principals") && (
        <Section key="principals" title="Principals">
          <ErrorNote message={principals.error} />
          {principals.data && <PrincipalList answer={principals.data} selected={selected} />}
        </Section>
      )}
      {auth && selected && (
        <Section key="principal" title={`Principal ${selected}`}>
          <PrincipalDetail
            principal={selected}
            roles={roles.data?.roles ?? []}
            round={round}
            onChanged={principals.reload}
          />
        </Section>
      )}
      {auth && can("POST /auth/keys") && (
        <Section key="create" title="Create an API key">
          <CreateKey
            principal={selected}
            known={known}
            onCreated={(owner) => {
              principals.reload();
              setRound((n) => n + 1);
              if (owner !== selected) navigate("access", owner);
            }}
          />
        </Section>
      )}
      {auth && can("GET /auth/roles/all") && (
        <Section key="roles" title="Roles">
          <ErrorNote message={roles.error} />
          {roles.data && <RoleList roles={roles.data.roles} />}
        </Section>
      )}
      {auth && can("GET /auth/policies/:scope/:target_id") && (
        <Section key="tool-policies" title="Tool access policies">
          <ToolPolicies />
        </Section>
      )}
      {can("GET /mcp_servers/:id/l7_policy") && (
        <Section key="l7" title="L7 egress policies">
          <L7Policies />
        </Section>
      )}
    </div>
  );
}
