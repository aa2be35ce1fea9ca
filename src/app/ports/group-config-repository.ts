import type { GroupInput } from "../../domain/group/group-snapshot.js";

/**
 * Groups created through REST, with their settings and members, so they come back after a restart
 * and on every replica. Groups of the configuration file are not stored.
 *
 * Guaranteed: `save` replaces the whole definition of `group.group_id`; `list` is ordered by id.
 * Not guaranteed: ordering between concurrent saves of one id (the last write wins).
 */
export interface GroupConfigRepository {
  save(group: GroupInput, at: number): Promise<void>;
  /** True when a definition was removed. */
  delete(groupId: string): Promise<boolean>;
  list(): Promise<GroupInput[]>;
}
