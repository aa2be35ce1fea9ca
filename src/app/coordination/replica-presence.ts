import type { Clock } from "../ports/clock.js";
import type { Logger } from "../ports/logger.js";
import type { ReplicaRecord, ReplicaRegistry } from "../ports/replica-registry.js";

/** What a replica says of itself besides its id and host, known once the services are built. */
export interface ReplicaIdentity {
  readonly version: string;
  readonly started_at: number;
}

/**
 * This replica's place in the replica registry (docs/replicas.md "Who is there"): its heartbeat,
 * written off the request path by `beat` (every `coordination.renew_interval_s`, with the lease's
 * renewals), and the replicas seen within `staleAfterS` (`coordination.lease_ttl_s`: a replica
 * silent that long is as gone as a leader that long silent). Rows older than that are removed at
 * each beat. Without coordination nothing is written and this replica is the only one.
 */
export class ReplicaPresence {
  private identity: ReplicaIdentity = { version: "", started_at: 0 };
  private address: string | null = null;

  constructor(
    private readonly deps: {
      /** Absent without coordination: no peers, nothing shared. */
      registry: ReplicaRegistry | undefined;
      clock: Clock;
      logger: Logger;
      instanceId: string;
      host: string;
      staleAfterS: number;
    },
  ) {}

  /** Whether the replica announces itself to peers (coordination configured). */
  get shared(): boolean {
    return this.deps.registry !== undefined;
  }

  identify(identity: ReplicaIdentity): void {
    this.identity = identity;
  }

  /** The HTTP address bound, once the listener is up. */
  advertise(address: string | null): void {
    this.address = address;
  }

  /** This replica now. */
  self(): ReplicaRecord {
    return {
      instance_id: this.deps.instanceId,
      host: this.deps.host,
      address: this.address,
      version: this.identity.version,
      started_at: this.identity.started_at,
      last_seen_at: this.deps.clock.now() / 1000,
    };
  }

  /** Writes this replica's heartbeat and ages out the replicas silent past `staleAfterS`. */
  async beat(): Promise<void> {
    const registry = this.deps.registry;
    if (!registry) return;
    const self = this.self();
    await registry.beat(self);
    await registry.prune(self.last_seen_at - this.deps.staleAfterS);
  }

  /** Removes this replica's row as it stops; a failure only leaves it to age out. */
  async leave(): Promise<void> {
    await this.deps.registry?.remove(this.deps.instanceId).catch((error: unknown) => {
      this.deps.logger.warn({ err: String(error) }, "could not remove this replica from the registry");
    });
  }

  /**
   * Every replica seen within `staleAfterS`, this one always included (as it is now, even before
   * its first heartbeat landed), by instance id.
   */
  async live(): Promise<ReplicaRecord[]> {
    const self = this.self();
    const registry = this.deps.registry;
    const others = registry
      ? (await registry.live(self.last_seen_at - this.deps.staleAfterS)).filter(
          (replica) => replica.instance_id !== self.instance_id,
        )
      : [];
    return [...others, self].sort((a, b) =>
      a.instance_id < b.instance_id ? -1 : a.instance_id > b.instance_id ? 1 : 0,
    );
  }
}
