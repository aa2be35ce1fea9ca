/**
 * Durable state: the event store, the shared persistence backend and multi-replica coordination.
 *
 * `persistence.backend` and `event_store.driver` keep no default inside their sections: whether the
 * operator wrote them decides if a legacy key contradicts the selected backend. The top-level
 * schema fills their defaults once that check has run.
 */
import * as z from "zod";
import { cleanChecker } from "./clean.js";
import {
  addError,
  addWarning,
  bool,
  intBetween,
  nonBlank,
  numberAbove,
  numberBetween,
  oneOf,
  optionalSection,
  rule,
  section,
  str,
} from "./primitives.js";

/**
 * When a call's answer may leave the gateway: once its events are committed (`before_answer`, the
 * default: an acknowledged call is a recorded one), or at once, the events committed a few
 * milliseconds later by the group commit (`after_answer`: a crash can lose what was answered).
 */
export const EVENT_COMMIT_MODES = ["before_answer", "after_answer"] as const;
export type EventCommitMode = (typeof EVENT_COMMIT_MODES)[number];

export const eventStoreSchema = section({
  enabled: bool().default(true),
  driver: oneOf(["sqlite", "memory"]).optional(),
  path: nonBlank("must be a non-empty path").default("data/events.db"),
  allow_memory_fallback: bool().default(false),
  commit: oneOf(EVENT_COMMIT_MODES).default("before_answer"),
});

/** Connection settings passed to the PostgreSQL driver; the shown keys are checked, others kept. */
const postgresqlSchema = z.preprocess(
  (value) => (value === null ? undefined : value),
  z
    .looseObject(
      {
        host: nonBlank().optional(),
        port: intBetween(1, 65535).optional(),
        user: nonBlank().optional(),
        password: str().optional(),
        database: nonBlank().optional(),
      },
      rule("must be a mapping of connection settings"),
    )
    .optional(),
);

const sqliteSchema = z.preprocess(
  (value) => (value === null ? undefined : value),
  z
    .looseObject({ path: nonBlank("must be a non-empty path").optional() }, rule("must be a mapping"))
    .optional(),
);

/**
 * How long the shared store may be unreachable before `/health/ready` answers 503: long enough that
 * one failed query or a database failover of a few seconds does not take every replica out of the
 * load balancer at once, short enough that a replica cut off from its database stops receiving
 * traffic within about one probe period.
 */
export const DEFAULT_READINESS_GRACE_S = 5;

export const persistenceSchema = section({
  backend: oneOf(["sqlite", "postgresql"]).optional(),
  readiness_grace_s: numberBetween(0, 3600).default(DEFAULT_READINESS_GRACE_S),
  sqlite: sqliteSchema,
  postgresql: postgresqlSchema,
});

/**
 * client-go's leader-election jitter factor: the renew loop may run up to 1.2 intervals apart, and
 * the deadline must still leave room for a renewal after such a late tick.
 */
export const RENEW_JITTER_FACTOR = 1.2;

/** Multi-replica management lease. Absent means a single replica (no lease). */
export const coordinationSchema = optionalSection({
  lease_ttl_s: numberAbove(0).default(15),
  renew_interval_s: numberAbove(0).default(5),
  renew_deadline_s: numberAbove(0).default(10),
}).superRefine((lease, ctx) => {
  // A refused timing has no value to compare with.
  const clean = cleanChecker(ctx.issues);
  if (lease === undefined || !clean([])) return;
  if (lease.renew_deadline_s >= lease.lease_ttl_s) {
    addError(
      ctx,
      ["renew_deadline_s"],
      `must be less than lease_ttl_s (${lease.lease_ttl_s}): the holder must step down before its lease expires`,
    );
  }
  if (lease.renew_interval_s * RENEW_JITTER_FACTOR >= lease.renew_deadline_s) {
    // The spec sets no rule here, so the timing is accepted; renewing this seldom would let the
    // holder miss its own deadline between two renewals, so it renews twice per deadline instead.
    const renewal = lease.renew_deadline_s / 2;
    addWarning(
      ctx,
      ["renew_interval_s"],
      `${lease.renew_interval_s} x ${RENEW_JITTER_FACTOR} does not stay under renew_deadline_s (${lease.renew_deadline_s}): the holder could miss its deadline between two renewals; renews every ${renewal} s instead (renew_deadline_s / 2)`,
      { warning: "adjusted_config_value", fix: { kind: "replace", value: renewal } },
    );
  }
});
