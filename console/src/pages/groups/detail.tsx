import { useState } from "preact/hooks";
import { api, seg } from "../../api.js";
import { useApiGet } from "../../components/data.js";
import { StateFollower } from "../../components/state-follower.js";
import { ActionButton, ErrorNote, Section, StateBadge } from "../../components/ui.js";
import { href } from "../../router.js";
import { useCan } from "../../session.js";
import { Facts } from "../server/facts.js";
import { CircuitBadge, MemberTable } from "./members.js";
import { counts, GROUP_EVENTS, type Group } from "./model.js";

/** `GET /groups/{id}/settings`: what the group object does not carry (docs/rest-api.md "Groups"). */
interface GroupSettings {
  unhealthy_threshold: number;
  healthy_threshold: number;
  circuit_breaker: { failure_threshold: number; open: boolean; failure_run: number };
  canary: { member: string | null; split_pct: number; pinned_tenants: Record<string, string> } | null;
}

const SETTINGS_ROUTE = "GET /groups/:id/settings";

/**
 * One group (`#/groups/<id>`): its settings, circuit breaker (threshold and current failure run),
 * canary and members, kept current from the state stream; Rebalance for a caller who may use it.
 */
export function GroupPage({ id }: { id: string }) {
  const can = useCan();
  const group = useApiGet<Group>(`/groups/${seg(id)}`);
  const settings = useApiGet<GroupSettings>(can(SETTINGS_ROUTE) ? `/groups/${seg(id)}/settings` : null);
  const reload = () => {
    group.reload();
    settings.reload();
  };
  const [rebalanced, setRebalanced] = useState(false);
  const data = group.data;
  return (
    <div>
      <p>
        <a href={href("groups")}>Back to the groups</a>
      </p>
      <header class="page-head">
        <h1>{id}</h1>
        {data && <StateBadge state={data.state} />}
        <StateFollower filter={{ event_types: GROUP_EVENTS }} onChange={reload} />
      </header>
      <ErrorNote message={group.error} />
      {data && (
        <>
          <Section
            title="Group"
            actions={
              can("POST /groups/:id/rebalance") && (
                <ActionButton
                  label="Rebalance"
                  busyLabel="Rebalancing…"
                  action={() => {
                    setRebalanced(false);
                    return api("POST", `/groups/${seg(id)}/rebalance`);
                  }}
                  onDone={() => {
                    setRebalanced(true);
                    reload();
                  }}
                />
              )
            }
          >
            {rebalanced && (
              <p role="status" class="muted">
                Rebalanced: member health re-checked, rotation recomputed.
              </p>
            )}
            {data.description && <p>{data.description}</p>}
            <Facts
              items={[
                ["Strategy", data.strategy],
                ["Members", counts(data)],
                ["Minimum healthy", data.min_healthy],
                ["Available", data.is_available ? "yes: calls are routed" : "no: calls are refused"],
                [
                  "Circuit breaker",
                  <span key="circuit">
                    <CircuitBadge open={data.circuit_open} />
                    {data.circuit_open && (
                      <span class="muted">
                        {" "}
                        calls fail with CircuitBreakerOpen until a rebalance or a passing check
                      </span>
                    )}
                  </span>,
                ],
                ...(settings.data
                  ? ([
                      [
                        "Failure run",
                        `${settings.data.circuit_breaker.failure_run} of ${settings.data.circuit_breaker.failure_threshold} failed calls in a row open the circuit`,
                      ],
                      [
                        "Rotation",
                        `out after ${settings.data.unhealthy_threshold} failures, back after ${settings.data.healthy_threshold} successes`,
                      ],
                    ] as [string, string][])
                  : []),
              ]}
            />
            <ErrorNote message={settings.error} />
          </Section>
          {settings.data && <CanarySection canary={settings.data.canary} />}
          <Section title="Members">
            <MemberTable members={data.members} />
          </Section>
        </>
      )}
    </div>
  );
}

/** The canary member, its share of traffic and the tenants pinned to members. */
function CanarySection({ canary }: { canary: GroupSettings["canary"] }) {
  const pins = Object.entries(canary?.pinned_tenants ?? {});
  return (
    <Section title="Canary">
      {!canary || (canary.member === null && pins.length === 0) ? (
        <p class="muted">No canary: every call is routed by the strategy.</p>
      ) : (
        <>
          <Facts
            items={[
              ["Canary member", canary.member ?? "none"],
              ["Split", `${canary.split_pct} % of calls to the canary`],
            ]}
          />
          {pins.length > 0 && (
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Tenant</th>
                    <th scope="col">Pinned to</th>
                  </tr>
                </thead>
                <tbody>
                  {pins.map(([tenant, member]) => (
                    <tr key={tenant} data-pin={tenant}>
                      <td>{tenant}</td>
                      <td>{member}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
    </Section>
  );
}
