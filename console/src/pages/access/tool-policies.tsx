import { useState } from "preact/hooks";
import { api, seg } from "../../api.js";
import { messageOf } from "../../components/data.js";
import { ActionButton, ErrorNote } from "../../components/ui.js";
import { useCan } from "../../session.js";

interface ToolPolicy {
  found: boolean;
  scope: string;
  target_id: string;
  allow_list: string[];
  deny_list: string[];
}

const SCOPES = [
  ["provider", "a server"],
  ["group", "a group"],
  ["member", "a group member"],
] as const;

const lines = (text: string) =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);

/** `/auth/policies/{scope}/{target_id}`: the allow and deny globs set through the API for one target. */
export function ToolPolicies() {
  const can = useCan();
  const [scope, setScope] = useState("provider");
  const [target, setTarget] = useState("");
  const [policy, setPolicy] = useState<ToolPolicy | null>(null);
  const [allow, setAllow] = useState("");
  const [deny, setDeny] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const path = policy ? `/auth/policies/${seg(policy.scope)}/${seg(policy.target_id)}` : "";
  const show = (answer: ToolPolicy) => {
    setPolicy(answer);
    setAllow(answer.allow_list.join("\n"));
    setDeny(answer.deny_list.join("\n"));
  };
  const load = async (event: Event) => {
    event.preventDefault();
    setError(null);
    setSaved(null);
    try {
      show(await api<ToolPolicy>("GET", `/auth/policies/${seg(scope)}/${seg(target.trim())}`));
    } catch (failure) {
      setPolicy(null);
      setError(messageOf(failure));
    }
  };
  return (
    <div>
      <form class="inline-form" onSubmit={load}>
        <div>
          <label for="policy-scope">Scope</label>
          <select
            id="policy-scope"
            value={scope}
            onChange={(event) => setScope((event.target as HTMLSelectElement).value)}
          >
            {SCOPES.map(([value, text]) => (
              <option key={value} value={value}>
                {value} ({text})
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="policy-target">Target id</label>
          <input
            id="policy-target"
            required
            autoComplete="off"
            value={target}
            onInput={(event) => setTarget((event.target as HTMLInputElement).value)}
          />
        </div>
        <button type="submit" disabled={target.trim() === ""}>
          Show policy
        </button>
      </form>
      <ErrorNote message={error} />
      {policy && (
        <div class="policy">
          <p>
            {policy.found
              ? `A policy is set for ${policy.scope} ${policy.target_id}.`
              : `No policy is set through the API for ${policy.scope} ${policy.target_id} (the configuration file's tool lists still apply).`}
          </p>
          <div class="grid">
            <div>
              <label for="policy-allow">Allowed tools (one glob a line; empty: all)</label>
              <textarea
                id="policy-allow"
                rows={5}
                value={allow}
                readOnly={!can("POST /auth/policies/:scope/:target_id")}
                onInput={(event) => setAllow((event.target as HTMLTextAreaElement).value)}
              />
            </div>
            <div>
              <label for="policy-deny">Denied tools (one glob a line)</label>
              <textarea
                id="policy-deny"
                rows={5}
                value={deny}
                readOnly={!can("POST /auth/policies/:scope/:target_id")}
                onInput={(event) => setDeny((event.target as HTMLTextAreaElement).value)}
              />
            </div>
          </div>
          {can("POST /auth/policies/:scope/:target_id") && (
            <ActionButton
              label="Save policy"
              busyLabel="Saving…"
              action={() =>
                api<ToolPolicy>("POST", path, { allow_list: lines(allow), deny_list: lines(deny) })
              }
              onDone={(answer) => {
                show({ ...(answer as ToolPolicy), found: true });
                setSaved("Saved: the policy applies to the next call.");
              }}
            />
          )}
          {policy.found && can("DELETE /auth/policies/:scope/:target_id") && (
            <ActionButton
              label="Delete policy"
              danger
              confirm={`Delete the tool policy of ${policy.scope} ${policy.target_id}?`}
              action={() => api("DELETE", path)}
              onDone={() => {
                show({ ...policy, found: false, allow_list: [], deny_list: [] });
                setSaved("Deleted.");
              }}
            />
          )}
          {saved && <p role="status">{saved}</p>}
        </div>
      )}
    </div>
  );
}
