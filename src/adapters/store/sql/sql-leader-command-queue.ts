import { type Kysely, sql } from "kysely";
import type {
  ClaimingTerm,
  ForwardedCaller,
  LeaderCommand,
  LeaderCommandOutcome,
  LeaderCommandQueue,
} from "../../../app/ports/leader-command-queue.js";
import type { SqlDialectName } from "../sql-store.js";
import { databaseNow, fromJson, toJson } from "./sql-helpers.js";
import type { StoreTables } from "./store-tables.js";

interface ClaimedRow {
  command_id: string;
  operation: string;
  input: string;
  caller: string;
  requested_by: string;
  requested_at: number;
}

/**
 * The command hand-over in the shared database. `claim` is one conditional statement that also
 * reads the lease row, so a replica whose term ended (even one paused past its deadline that has
 * not noticed yet) claims nothing.
 */
export class SqlLeaderCommandQueue implements LeaderCommandQueue {
  constructor(
    private readonly db: Kysely<StoreTables>,
    private readonly dialect: SqlDialectName,
  ) {}

  async submit(command: Omit<LeaderCommand, "requested_at">): Promise<void> {
    const now = databaseNow(this.dialect);
    await sql`
      insert into leader_commands (command_id, operation, input, caller, requested_by, requested_at)
      values (${command.command_id}, ${command.operation}, ${toJson(command.input)},
        ${toJson(command.caller)}, ${command.requested_by}, ${now})`.execute(this.db);
  }

  async claim(term: ClaimingTerm, limit: number): Promise<LeaderCommand[]> {
    const now = databaseNow(this.dialect);
    const { rows } = await sql<ClaimedRow>`
      update leader_commands set claimed_generation = ${term.generation}
      where command_id in (
        select command_id from leader_commands
        where completed_at is null
          and (claimed_generation is null or claimed_generation < ${term.generation})
        order by requested_at
        limit ${limit})
      and exists (
        select 1 from leases
        where name = ${term.lease} and holder = ${term.holder}
          and generation = ${term.generation} and expires_at > ${now})
      returning command_id, operation, input, caller, requested_by, requested_at`.execute(this.db);
    return rows
      .map((row) => ({
        command_id: row.command_id,
        operation: row.operation,
        input: fromJson<unknown>(row.input),
        caller: fromJson<ForwardedCaller>(row.caller),
        requested_by: row.requested_by,
        requested_at: Number(row.requested_at),
      }))
      .sort((a, b) => a.requested_at - b.requested_at);
  }

  async complete(commandId: string, generation: number, outcome: LeaderCommandOutcome): Promise<boolean> {
    const now = databaseNow(this.dialect);
    const { rows } = await sql<{ command_id: string }>`
      update leader_commands set outcome = ${toJson(outcome)}, completed_at = ${now}
      where command_id = ${commandId} and claimed_generation = ${generation} and completed_at is null
      returning command_id`.execute(this.db);
    return rows.length > 0;
  }

  async withdraw(commandId: string): Promise<boolean> {
    const rows = await this.db
      .deleteFrom("leader_commands")
      .where("command_id", "=", commandId)
      .where("claimed_generation", "is", null)
      .returning("command_id")
      .execute();
    return rows.length > 0;
  }

  async outcome(commandId: string): Promise<LeaderCommandOutcome | undefined> {
    const row = await this.db
      .selectFrom("leader_commands")
      .select("outcome")
      .where("command_id", "=", commandId)
      .executeTakeFirst();
    return row?.outcome ? fromJson<LeaderCommandOutcome>(row.outcome) : undefined;
  }

  async purge(before: number): Promise<number> {
    const rows = await this.db
      .deleteFrom("leader_commands")
      .where("requested_at", "<", before)
      .returning("command_id")
      .execute();
    return rows.length;
  }
}
