import { useState } from "preact/hooks";
import { Paged } from "../../components/ui.js";
import { href, navigate } from "../../router.js";
import type { PrincipalsAnswer, Role } from "./types.js";

/** Every principal holding a role (each a link to its keys and roles), and a way to open any other. */
export function PrincipalList({ answer, selected }: { answer: PrincipalsAnswer; selected: string }) {
  const [other, setOther] = useState("");
  const open = (event: Event) => {
    event.preventDefault();
    if (other.trim()) navigate("access", other.trim());
  };
  return (
    <div>
      <Paged
        items={answer.principals}
        pageSize={10}
        render={(page) => (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Principal</th>
                  <th scope="col">Roles</th>
                </tr>
              </thead>
              <tbody>
                {page.map((principal) => (
                  <tr key={principal.principal_id} data-principal={principal.principal_id}>
                    <td>
                      <a
                        href={href("access", principal.principal_id)}
                        aria-current={principal.principal_id === selected ? "true" : undefined}
                      >
                        {principal.principal_id}
                      </a>
                    </td>
                    <td>
                      {principal.roles.map((role) => `${role.role_name} (${role.scope})`).join(", ") || "—"}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      />
      <p class="muted">
        Principals that hold no role (only keys) are not listed: open one, or a new one, by its id.
      </p>
      <form class="inline-form" onSubmit={open}>
        <div>
          <label for="open-principal">Principal id</label>
          <input
            id="open-principal"
            value={other}
            autoComplete="off"
            onInput={(event) => setOther((event.target as HTMLInputElement).value)}
          />
        </div>
        <button type="submit" disabled={other.trim() === ""}>
          Open
        </button>
      </form>
    </div>
  );
}

/** The built-in and custom roles with their grants. */
export function RoleList({ roles }: { roles: Role[] }) {
  return (
    <Paged
      items={roles}
      pageSize={10}
      render={(page) => (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Role</th>
                <th scope="col">Description</th>
                <th scope="col">Permissions</th>
              </tr>
            </thead>
            <tbody>
              {page.map((role) => (
                <tr key={role.role_name}>
                  <td>
                    {role.role_name}
                    {role.builtin && <div class="muted">built in</div>}
                  </td>
                  <td>{role.description || "—"}</td>
                  <td class="wrap-anywhere">{role.permissions.join(", ") || "none"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    />
  );
}
