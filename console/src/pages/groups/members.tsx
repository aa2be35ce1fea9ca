import { Paged, StateBadge } from "../../components/ui.js";
import { href } from "../../router.js";
import type { GroupMember } from "./model.js";

/** The circuit breaker in words: open refuses every call through the group. */
export function CircuitBadge({ open }: { open: boolean }) {
  return open ? <span class="badge state-dead">open</span> : <span class="badge state-ready">closed</span>;
}

/** A group's members: state, rotation, weight, priority and failures in a row. */
export function MemberTable({ members }: { members: readonly GroupMember[] }) {
  if (members.length === 0) return <p class="muted">No members.</p>;
  return (
    <Paged
      items={members}
      render={(page) => (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Member</th>
                <th scope="col">State</th>
                <th scope="col">In rotation</th>
                <th scope="col">Weight</th>
                <th scope="col">Priority</th>
                <th scope="col">Failures in a row</th>
              </tr>
            </thead>
            <tbody>
              {page.map((member) => (
                <tr key={member.id} data-member={member.id}>
                  <td>
                    <a href={href("fleet", member.id)}>{member.id}</a>
                  </td>
                  <td>
                    <StateBadge state={member.state} />
                  </td>
                  <td>{member.in_rotation ? "yes" : "no"}</td>
                  <td>{member.weight}</td>
                  <td>{member.priority}</td>
                  <td>{member.consecutive_failures}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    />
  );
}
