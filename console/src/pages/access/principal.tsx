import { useEffect, useState } from "preact/hooks";
import { api } from "../../api.js";
import { messageOf, useApiGet, when } from "../../components/data.js";
import { ActionButton, ErrorNote, Paged } from "../../components/ui.js";
import { useCan } from "../../session.js";
import type { KeysAnswer, PrincipalRoles, Role } from "./types.js";

const q = encodeURIComponent;

/** One principal's role assignments (assign, revoke) and API keys (revoke with a reason). */
export function PrincipalDetail(props: {
  principal: string;
  roles: Role[];
  /** Raised when a key was created elsewhere on the page: the list is read again. */
  round: number;
  onChanged: () => void;
}) {
  const can = useCan();
  const { principal } = props;
  const assigned = useApiGet<PrincipalRoles>(
    can("GET /auth/principals/roles") ? `/auth/principals/roles?principal_id=${q(principal)}` : null,
  );
  const keys = useApiGet<KeysAnswer>(
    can("GET /auth/keys") ? `/auth/keys?principal_id=${q(principal)}` : null,
  );
  const { reload } = keys;
  useEffect(() => {
    if (props.round > 0) reload();
  }, [props.round, reload]);
  const changed = () => {
    assigned.reload();
    props.onChanged();
  };
  return (
    <div>
      <h3>Roles</h3>
      <ErrorNote message={assigned.error} />
      {assigned.data &&
        (assigned.data.roles.length === 0 ? (
          <p>No role is assigned to {principal}.</p>
        ) : (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Role</th>
                  <th scope="col">Scope</th>
                  <th scope="col">Assigned</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {assigned.data.roles.map((role) => (
                  <tr key={`${role.role_name}-${role.scope}`}>
                    <td>{role.role_name}</td>
                    <td>{role.scope}</td>
                    <td>
                      {role.source === "config"
                        ? "in the configuration file"
                        : `by ${role.assigned_by}, ${when(role.assigned_at)}`}
                    </td>
                    <td class="actions">
                      {role.source === "api" && can("DELETE /auth/roles/revoke") ? (
                        <ActionButton
                          label="Revoke"
                          danger
                          confirm={`Revoke ${role.role_name} (${role.scope}) from ${principal}?`}
                          action={() =>
                            api("DELETE", "/auth/roles/revoke", {
                              principal_id: principal,
                              role_name: role.role_name,
                              scope: role.scope,
                            })
                          }
                          onDone={changed}
                        />
                      ) : (
                        role.source === "config" && <span class="muted">change it in the file</span>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ))}
      {can("POST /auth/roles/assign") && (
        <AssignRole principal={principal} roles={props.roles} onDone={changed} />
      )}
      <h3>API keys</h3>
      <ErrorNote message={keys.error} />
      {keys.data && <KeyList principal={principal} answer={keys.data} onRevoked={keys.reload} />}
    </div>
  );
}

function AssignRole(props: { principal: string; roles: Role[]; onDone: () => void }) {
  const [role, setRole] = useState("");
  const [scope, setScope] = useState("global");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const chosen = role || props.roles[0]?.role_name || "";
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api("POST", "/auth/roles/assign", { principal_id: props.principal, role_name: chosen, scope });
      props.onDone();
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="inline-form" onSubmit={submit}>
      <div>
        <label for="assign-role">Role to assign</label>
        <select
          id="assign-role"
          value={chosen}
          onChange={(event) => setRole((event.target as HTMLSelectElement).value)}
        >
          {props.roles.map((entry) => (
            <option key={entry.role_name} value={entry.role_name}>
              {entry.role_name}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label for="assign-scope">Scope (global or tenant:&lt;id&gt;)</label>
        <input
          id="assign-scope"
          value={scope}
          autoComplete="off"
          onInput={(event) => setScope((event.target as HTMLInputElement).value)}
        />
      </div>
      <button type="submit" disabled={busy || chosen === ""} aria-busy={busy}>
        {busy ? "Assigning…" : "Assign"}
      </button>
      <ErrorNote message={error} />
    </form>
  );
}

function keyStatus(key: KeysAnswer["keys"][number]): string {
  if (key.revoked) return "revoked";
  if (key.expires_at && Date.parse(key.expires_at) <= Date.now()) return "expired";
  return "active";
}

/** The principal's keys, oldest first; revoking one asks for a reason first. */
function KeyList(props: { principal: string; answer: KeysAnswer; onRevoked: () => void }) {
  const can = useCan();
  const [revoking, setRevoking] = useState<{ key_id: string; name: string } | null>(null);
  if (props.answer.keys.length === 0) return <p>{props.principal} has no API key.</p>;
  return (
    <div>
      <p class="muted">
        {props.answer.active} active of {props.answer.total}.
      </p>
      <Paged
        items={props.answer.keys}
        pageSize={10}
        render={(page) => (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Key id</th>
                  <th scope="col">Status</th>
                  <th scope="col">Created</th>
                  <th scope="col">Expires</th>
                  <th scope="col">Last used</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {page.map((key) => {
                  const status = keyStatus(key);
                  return (
                    <tr key={key.key_id} data-key={key.key_id}>
                      <td>{key.name}</td>
                      <td class="wrap-anywhere">
                        <code>{key.key_id}</code>
                      </td>
                      <td>
                        <span class={`badge key-${status}`}>{status}</span>
                      </td>
                      <td>{when(key.created_at)}</td>
                      <td>{key.expires_at ? when(key.expires_at) : "never"}</td>
                      <td>{when(key.last_used_at)}</td>
                      <td class="actions">
                        {!key.revoked && can("DELETE /auth/keys/:key_id") && (
                          <button type="button" class="danger" onClick={() => setRevoking(key)}>
                            Revoke
                          </button>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
      />
      {revoking && (
        <RevokeKey
          target={revoking}
          onCancel={() => setRevoking(null)}
          onDone={() => {
            setRevoking(null);
            props.onRevoked();
          }}
        />
      )}
    </div>
  );
}

function RevokeKey(props: {
  target: { key_id: string; name: string };
  onCancel: () => void;
  onDone: () => void;
}) {
  const [reason, setReason] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api("DELETE", `/auth/keys/${q(props.target.key_id)}`, { reason });
      props.onDone();
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="inline-form revoke" onSubmit={submit}>
      <div>
        <label for="revoke-reason">
          Reason for revoking “{props.target.name}” ({props.target.key_id})
        </label>
        <input
          id="revoke-reason"
          value={reason}
          maxLength={1024}
          autoComplete="off"
          onInput={(event) => setReason((event.target as HTMLInputElement).value)}
        />
      </div>
      <button type="submit" class="danger" disabled={busy} aria-busy={busy}>
        {busy ? "Revoking…" : "Revoke key"}
      </button>
      <button type="button" onClick={props.onCancel}>
        Cancel
      </button>
      <ErrorNote message={error} />
    </form>
  );
}
