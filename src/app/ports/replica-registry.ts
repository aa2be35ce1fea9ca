/** A replica as it last told the shared store where it is (docs/replicas.md "Who is there"). */
export interface ReplicaRecord {
  readonly instance_id: string;
  /** The machine's host name. */
  readonly host: string;
  /** The HTTP address it listens on, as bound (`http://0.0.0.0:8080`); null before it listens or over stdio. */
  readonly address: string | null;
  readonly version: string;
  /** Epoch seconds. */
  readonly started_at: number;
  /** Epoch seconds of its last heartbeat, by its own clock. */
  readonly last_seen_at: number;
}

/**
 * Where replicas sharing a store announce themselves: one row per instance id, written by the
 * replica itself off the request path (a heartbeat every `coordination.renew_interval_s`).
 *
 * Guaranteed: `beat` replaces the replica's row whole; `live` answers the rows last seen at or
 * after `since`, by instance id. Not guaranteed: that a row's replica is still running (it may have
 * died since its last beat: `last_seen_at` says when it last was), nor clocks that agree between
 * replicas (`last_seen_at` is each replica's own).
 */
export interface ReplicaRegistry {
  beat(replica: ReplicaRecord): Promise<void>;
  live(since: number): Promise<ReplicaRecord[]>;
  /** Removes a replica's row (it stopped); true when there was one. */
  remove(instanceId: string): Promise<boolean>;
  /** Removes the rows last seen before `olderThan` (epoch seconds); answers how many. */
  prune(olderThan: number): Promise<number>;
}
