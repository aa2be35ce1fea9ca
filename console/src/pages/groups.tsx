import { useApiGet } from "../components/data.js";
import { StateFollower } from "../components/state-follower.js";
import { ErrorNote, Paged, Section, StateBadge } from "../components/ui.js";
import { href, type Route } from "../router.js";
import { GroupPage } from "./groups/detail.js";
import { CircuitBadge } from "./groups/members.js";
import { counts, GROUP_EVENTS, type Group } from "./groups/model.js";

/** `#/groups`: every group; `#/groups/<id>`: that group's page. */
export function GroupsPage({ route }: { route: Route }) {
  const id = route.parts[1];
  return id ? <GroupPage key={id} id={id} /> : <GroupList />;
}

/** Every group with its state, strategy, counts, circuit breaker and availability, kept current. */
function GroupList() {
  const groups = useApiGet<{ groups: Group[] }>("/groups/");
  return (
    <Section
      title="Groups"
      actions={<StateFollower filter={{ event_types: GROUP_EVENTS }} onChange={groups.reload} />}
    >
      <ErrorNote message={groups.error} />
      {groups.data && groups.data.groups.length === 0 && <p class="muted">No groups.</p>}
      {groups.data && groups.data.groups.length > 0 && (
        <Paged
          items={groups.data.groups}
          render={(page) => (
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Group</th>
                    <th scope="col">State</th>
                    <th scope="col">Strategy</th>
                    <th scope="col">Members</th>
                    <th scope="col">Circuit breaker</th>
                    <th scope="col">Available</th>
                  </tr>
                </thead>
                <tbody>
                  {page.map((group) => (
                    <tr key={group.group_id} data-group={group.group_id}>
                      <td>
                        <a href={href("groups", group.group_id)}>{group.group_id}</a>
                        {group.description && <div class="muted">{group.description}</div>}
                      </td>
                      <td>
                        <StateBadge state={group.state} />
                      </td>
                      <td>{group.strategy}</td>
                      <td>{counts(group)}</td>
                      <td>
                        <CircuitBadge open={group.circuit_open} />
                      </td>
                      <td>{group.is_available ? "yes" : "no"}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        />
      )}
    </Section>
  );
}
