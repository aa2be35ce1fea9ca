import { LeaderCommands } from "../app/coordination/leader-commands.js";
import { LeaderElector } from "../app/coordination/leader-elector.js";
import { MANAGEMENT_LEASE } from "../app/coordination/leadership.js";
import { ReplicaPresence } from "../app/coordination/replica-presence.js";
import type { Fleet } from "../app/fleet/fleet.js";
import type { GroupService } from "../app/groups/group-service.js";
import type { Operation } from "../app/operation.js";
import type { Clock } from "../app/ports/clock.js";
import type { IdGenerator } from "../app/ports/id-generator.js";
import type { Logger } from "../app/ports/logger.js";
import type { AppServices, InstanceInfo } from "../app/services.js";
import type { GatewayConfig } from "../config/schema.js";
import type { AutoRecovery } from "../control/auto-recovery.js";
import { leaderCommandRunner } from "../control/leader-command-runner.js";
import { Periodic } from "../control/periodic.js";
import { type Runnable, Supervisor } from "../control/supervisor.js";
import type { Storage } from "./open-storage.js";

/** This replica's place among its peers: the elector (with coordination) and leader-only work. */
export interface Coordination {
  /** Absent without a `coordination` block: this replica manages its own fleet. */
  readonly elector: LeaderElector | undefined;
  /** With coordination: leader-only commands asked of this replica run on the fleet manager. */
  readonly leaderCommands: LeaderCommands | undefined;
  /** This replica among its peers (`GET /api/system/replicas`); alone without coordination. */
  readonly replicas: ReplicaPresence;
  /** The instance coordinates of `/system` and the `replica` blocks; `manages_fleet` is live. */
  instance(base: Pick<InstanceInfo, "instance_id" | "version" | "started_at" | "started_mono">): InstanceInfo;
  /** Starts asking for the lease (with coordination) and the leader-only work it governs. */
  start(): void;
  /** Stops leader-only work first, then releases the lease. Idempotent. */
  stop(): Promise<void>;
}

export interface LeaderOnlyWork {
  fleet: Fleet;
  groups: GroupService;
  idleReaper: Periodic;
  recovery: AutoRecovery;
  logger: Logger;
  /** Further leader-only work (the discovery cycle, forwarded commands), started after the rest. */
  runnables?: readonly Runnable[];
}

/**
 * Wires the management lease and the work only its holder does: starting `auto_start` groups,
 * the idle reaper and crash recovery. Health checks, pin re-checks and front-door warming run on
 * every replica (each keeps its own connections) and stay outside. Discovery cycles and circuit
 * persistence, when they exist, come in through `work.runnables`.
 */
export function createCoordination(
  config: GatewayConfig,
  deps: {
    storage: Storage;
    clock: Clock;
    logger: Logger;
    ids: IdGenerator;
    instanceId: string;
    /** The machine's host name, as the replica registry shows it. */
    host: string;
    work: LeaderOnlyWork;
    /** Every operation by name, and the services they run with, for forwarded commands. */
    operations: ReadonlyMap<string, Operation>;
    services: () => AppServices;
  },
): Coordination {
  const { storage, clock, logger, instanceId } = deps;
  const settings = config.coordination;
  const elector = settings
    ? new LeaderElector({
        store: storage.repositories.lease,
        clock,
        logger,
        name: MANAGEMENT_LEASE,
        holder: instanceId,
        timing: {
          leaseTtlS: settings.lease_ttl_s,
          renewIntervalS: settings.renew_interval_s,
          renewDeadlineS: settings.renew_deadline_s,
        },
      })
    : undefined;
  const queue = storage.repositories.leaderCommands;
  const leaderCommands =
    elector && queue
      ? new LeaderCommands({
          queue,
          leadership: elector,
          lease: MANAGEMENT_LEASE,
          ids: deps.ids,
          clock,
          logger,
          operations: deps.operations,
          services: deps.services,
        })
      : undefined;
  const runnables = leaderOnlyRunnables(deps.work, elector !== undefined);
  if (leaderCommands && queue) {
    runnables.push(leaderCommandRunner(leaderCommands, queue, { logger, now: () => clock.now() }));
  }
  const supervisor = new Supervisor(runnables, {
    logger,
    ...(elector && { leadership: elector }),
  });
  // Shared only when the backend is (PostgreSQL) and it actually opened (no memory fallback).
  const storageIsShareable = config.persistence.backend === "postgresql" && storage.degraded === null;
  let stopping: Promise<void> | null = null;
  const replicas = new ReplicaPresence({
    registry: settings ? storage.repositories.replicas : undefined,
    clock,
    logger,
    instanceId,
    host: deps.host,
    staleAfterS: settings?.lease_ttl_s ?? 0,
  });
  // The heartbeat rides the lease's cadence, off the request path; a failed beat is logged and the
  // next one tries again (the row ages out only after `lease_ttl_s` without one).
  const heartbeat = settings
    ? new Periodic(
        settings.renew_interval_s * 1000,
        () => replicas.beat(),
        (error) => logger.warn({ err: String(error) }, "replica heartbeat failed"),
      )
    : undefined;

  return {
    elector,
    leaderCommands,
    replicas,
    instance(base) {
      replicas.identify({ version: base.version, started_at: base.started_at / 1000 });
      return {
        ...base,
        coordinates_with_peers: elector !== undefined,
        get manages_fleet() {
          return elector ? elector.isLeader : true;
        },
        storage_is_shareable: storageIsShareable,
        // Rate-limit buckets live in each replica's memory (spec 2 §8).
        rate_limits_are_per_instance: true,
      };
    },
    start() {
      supervisor.start();
      elector?.start();
      if (heartbeat) {
        void replicas
          .beat()
          .catch((error: unknown) => logger.warn({ err: String(error) }, "replica heartbeat failed"));
        heartbeat.start();
      }
    },
    stop() {
      stopping ??= (async () => {
        await heartbeat?.stop();
        if (heartbeat) await replicas.leave();
        // The elector announces the loss (the supervisor stops the work) before it releases.
        await elector?.stop();
        await supervisor.stop();
      })();
      return stopping;
    },
  };
}

/**
 * The leader-only work. With coordination, losing the lease also stops the local-mode servers this
 * replica runs (a configuration with coordination declares none, but hot-loaded ones may exist):
 * the next leader starts its own.
 */
function leaderOnlyRunnables(work: LeaderOnlyWork, coordinated: boolean): Runnable[] {
  const { fleet, groups, logger } = work;
  let autoStart: Promise<unknown> = Promise.resolve();
  return [
    { name: "idle-reaper", start: () => work.idleReaper.start(), stop: () => work.idleReaper.stop() },
    { name: "auto-recovery", start: () => work.recovery.start(), stop: () => work.recovery.stop() },
    {
      name: "auto-start",
      // `auto_start` groups start their members in the background: failures are logged and the
      // members stay startable by calls.
      start() {
        const starts = groups
          .list()
          .filter(([, group]) => group.auto_start)
          .map(([id]) =>
            groups.startMembers(id).then(({ failed }) => {
              for (const failure of failed)
                logger.warn(
                  { group_id: id, member: failure.id, error: failure.error },
                  "group member did not start",
                );
            }),
          );
        autoStart = Promise.all(starts);
      },
      async stop() {
        await autoStart.catch(() => undefined);
        if (!coordinated) return;
        const local = fleet
          .list()
          .filter((server) => server.spec.mode !== "remote" && server.connection != null);
        await Promise.all(local.map((server) => fleet.stopServer(server, "leadership_lost")));
      },
    },
    ...(work.runnables ?? []),
  ];
}
