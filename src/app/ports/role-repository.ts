/** A custom role (built-in roles live in `domain`, never here). Times are epoch seconds, fractional. */
export interface RoleRecord {
  readonly role_name: string;
  readonly description: string;
  /** Permission strings (`resource:action[:id]`), in the order given. */
  readonly permissions: readonly string[];
  readonly created_at: number;
  readonly created_by: string;
  readonly updated_at: number;
}

export interface RoleChanges {
  readonly description?: string;
  /** Replaces the whole list. */
  readonly permissions?: readonly string[];
  readonly updated_at: number;
}

/**
 * Custom roles, shared by every replica.
 *
 * Guaranteed: role names are unique (`create` answers false and changes nothing when the name is
 * taken); `list` is ordered by name. Not guaranteed: that a name does not collide with a built-in
 * role (the caller refuses those); that deleting a role removes its assignments (call
 * `RoleAssignmentRepository.revokeRole`).
 */
export interface RoleRepository {
  /** True when created; false when a role of that name exists. `updated_at` starts as `created_at`. */
  create(role: Omit<RoleRecord, "updated_at">): Promise<boolean>;
  get(roleName: string): Promise<RoleRecord | undefined>;
  list(): Promise<RoleRecord[]>;
  /** The role after the change, or undefined when it does not exist. */
  update(roleName: string, changes: RoleChanges): Promise<RoleRecord | undefined>;
  /** True when a role was removed. */
  delete(roleName: string): Promise<boolean>;
}
