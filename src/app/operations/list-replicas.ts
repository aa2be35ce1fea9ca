import { z } from "zod";
import { MANAGEMENT_LEASE } from "../coordination/leadership.js";
import { defineOperation } from "../operation.js";
import type { ReplicaRecord } from "../ports/replica-registry.js";

/** The management lease as `GET /system/replicas` shows it. */
interface LeaseView {
  name: string;
  holder: string;
  generation: number;
  /** Epoch seconds, by the answering replica's clock from the store's remaining time. */
  expires_at: number;
  expires_in_seconds: number;
  expired: boolean;
}

/**
 * The replicas sharing this gateway's store (docs/replicas.md "Who is there"): the answering one,
 * the management lease's holder, and every replica whose heartbeat is recent, with its
 * coordinates. Without coordination the answering replica is the only one and no lease exists.
 */
export const listReplicas = defineOperation({
  name: "list-replicas",
  kind: "query",
  summary: "This replica, the management lease's holder and every live replica with its coordinates.",
  permissions: ["metrics:read"],
  input: z.strictObject({}),
  async run(services) {
    const presence = services.replicas;
    const self = presence?.self();
    const lease = services.coordination
      ? await services.repositories.lease.read(MANAGEMENT_LEASE)
      : undefined;
    const now = services.clock.now() / 1000;
    const leaseView: LeaseView | null = lease
      ? {
          name: lease.name,
          holder: lease.holder,
          generation: lease.generation,
          expires_at: now + lease.expires_in,
          expires_in_seconds: Math.max(0, lease.expires_in),
          expired: lease.expires_in <= 0,
        }
      : null;
    const holder = leaseView && !leaseView.expired ? leaseView.holder : null;
    const seen: ReplicaRecord[] = presence ? await presence.live() : [];
    return {
      this_replica: services.instance.instance_id,
      coordinates_with_peers: services.instance.coordinates_with_peers,
      lease: leaseView,
      replicas: seen.map((replica) => ({
        ...replica,
        is_self: replica.instance_id === self?.instance_id,
        // Without coordination the answering replica manages its own fleet.
        holds_lease: services.coordination ? replica.instance_id === holder : true,
      })),
    };
  },
});
