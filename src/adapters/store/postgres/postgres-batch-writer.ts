import { CompiledQuery, type Kysely, sql } from "kysely";
import type { AppendGroup } from "../batching-appender.js";
import type { EventTables } from "../event-table.js";

/**
 * First key of the advisory lock that serializes appenders ("ARLK"); the second is the `events`
 * table's oid, so each schema (each deployment, each test) has its own lock and the pair cannot
 * collide with single-key advisory locks taken by anything else.
 */
export const APPEND_LOCK_CLASS = 0x41524c4b;

/**
 * `begin` and the append lock in one simple query (no parameters, so the driver sends both
 * statements in one message): the lock is held until the transaction ends. READ COMMITTED
 * explicitly: under REPEATABLE READ the snapshot would predate the lock wait and miss the previous
 * holder's rows, whatever the server's default isolation is.
 */
const BEGIN_LOCKED = sql.raw(
  `begin isolation level read committed; select pg_advisory_xact_lock(${APPEND_LOCK_CLASS}, 'events'::regclass::oid::int4)`,
);

/**
 * One statement numbers and inserts the whole batch, after the lock: it reads `max(position)` and
 * each stream's last version (one correlated `max()` per stream, an index seek, rather than a
 * `group by` that would read every index entry of those streams) in its own snapshot, which READ
 * COMMITTED takes when the statement starts, after the lock was granted: it sees the previous
 * holder's commit. Events whose `event_id` is already stored are skipped, and so is the second of
 * two events sharing an id within the batch (a retry of a batch whose commit went unheard stores
 * nothing twice); positions and versions are numbered over the rows kept, in batch order. The
 * batch travels as six array parameters, whatever its size.
 */
const INSERT_BATCH = `with input as (
    select * from unnest($1::text[], $2::text[], $3::text[], $4::float8[], $5::text[], $6::text[])
      with ordinality as t(stream_id, event_id, event_type, occurred_at, produced_by, payload, ord)
  ),
  fresh as (
    select i.*, row_number() over (partition by i.event_id order by i.ord) as copy
    from input i
    where not exists (select 1 from events e where e.event_id = i.event_id)
  ),
  kept as (
    select f.*, row_number() over (order by f.ord) as n,
      row_number() over (partition by f.stream_id order by f.ord) as stream_n
    from fresh f where f.copy = 1
  ),
  last as (select coalesce(max(position), 0) as position from events),
  versions as (
    select s.stream_id,
      coalesce((select max(e.stream_version) from events e where e.stream_id = s.stream_id), 0) as version
    from (select distinct stream_id from kept) s
  )
  insert into events (position, stream_id, stream_version, event_id, event_type, occurred_at, produced_by, payload)
  select last.position + k.n, k.stream_id, v.version + k.stream_n, k.event_id, k.event_type,
    k.occurred_at, k.produced_by, k.payload
  from kept k join versions v on v.stream_id = k.stream_id cross join last`;

/**
 * Writes one batch in one transaction of three round trips: `begin` with the lock, the insert,
 * `commit` (the insert cannot take the lock itself: its snapshot would predate the lock wait).
 * With `event_store.commit: before_answer` a call that finds no batch under way waits for one
 * whole transaction, and at one call in flight there is one per call: the previous writer
 * (Kysely's transaction, a query for the last position, one for the versions, inserts in chunks
 * of rows) used six round trips and about a third more of the gateway's CPU per commit.
 */
export async function writePostgresBatch(
  db: Kysely<EventTables>,
  batch: readonly AppendGroup[],
): Promise<void> {
  const streamIds: string[] = [];
  const eventIds: string[] = [];
  const types: string[] = [];
  const occurredAt: number[] = [];
  const producedBy: string[] = [];
  const payloads: string[] = [];
  for (const group of batch) {
    for (const event of group.events) {
      streamIds.push(group.streamId);
      eventIds.push(event.event_id);
      types.push(event.event_type);
      occurredAt.push(event.occurred_at);
      producedBy.push(event.produced_by);
      payloads.push(event.payload);
    }
  }
  if (eventIds.length === 0) return;
  const insert = CompiledQuery.raw(INSERT_BATCH, [
    streamIds,
    eventIds,
    types,
    occurredAt,
    producedBy,
    payloads,
  ]);
  await db.connection().execute(async (connection) => {
    try {
      await BEGIN_LOCKED.execute(connection);
      await connection.executeQuery(insert);
      await sql.raw("commit").execute(connection);
    } catch (error) {
      // The connection goes back to the pool: it must not stay inside the failed transaction.
      await sql
        .raw("rollback")
        .execute(connection)
        .catch(() => undefined);
      throw error;
    }
  });
}
