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

/**
 * One group (`#/groups/<id>`): its settings, circuit breaker and members, kept current from the
 * state stream; Rebalance for a caller who may use it.
 */
export function GroupPage({ id }: { id: string }) {
  const can = useCan();
  const group = useApiGet<Group>(`/groups/${seg(id)}`);
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
        <StateFollower filter={{ event_types: GROUP_EVENTS }} onChange={group.reload} />
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
                    group.reload();
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
              ]}
            />
          </Section>
          <Section title="Members">
            <MemberTable members={data.members} />
          </Section>
        </>
      )}
    </div>
  );
}
