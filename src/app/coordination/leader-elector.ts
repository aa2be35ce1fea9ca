import {
  type LeaseTiming,
  leaseTimingProblems,
  termStillHeld,
} from "../../domain/coordination/lease-timing.js";
import type { Clock } from "../ports/clock.js";
import type { LeaseStore } from "../ports/lease-store.js";
import type { Logger } from "../ports/logger.js";
import type {
  Leadership,
  LeadershipChange,
  LeadershipListener,
  LeaseTerm,
  StepDownReason,
} from "./leadership.js";

export interface LeaderElectorDeps {
  store: LeaseStore;
  clock: Clock;
  logger: Logger;
  /** The lease row's name; one per fleet. */
  name: string;
  /** This replica's id, written as the lease's holder. */
  holder: string;
  timing: LeaseTiming;
}

interface Held {
  generation: number;
  /** Monotonic ms at which the last successful acquire or renew was sent. */
  confirmedAt: number;
}

/**
 * Acquires and renews the management lease (client-go's `leaderelection` pattern).
 *
 * A follower asks for the lease every `renew_interval_s`; the leader renews on the same interval.
 * Each success is dated by when its request was SENT (the store stamps the expiry later, so the
 * row lives at least `lease_ttl_s` past that moment). The leader steps down once `renew_deadline_s`
 * has passed since then without a new success, which is before the row can expire and be taken
 * elsewhere; `isLeader` checks the deadline itself, so a paused process is not leader the moment
 * it resumes, even before its timers run. A reply that arrives after a step-down is ignored.
 * `stop()` halts the loop, waits for listeners to stop leader-only work, then releases the lease
 * (the store expires the row at once, so a peer takes over on its next attempt).
 */
export class LeaderElector implements Leadership {
  private held: Held | null = null;
  private readonly listeners = new Set<LeadershipListener>();
  private readonly renewalFailureListeners = new Set<() => void>();
  private timer: NodeJS.Timeout | null = null;
  private deadlineTimer: NodeJS.Timeout | null = null;
  /** Bumped on every step-down: replies to requests sent in an earlier epoch are dropped. */
  private epoch = 0;
  private running = false;
  /** The attempt in flight, and the announcements of a change; awaited by `stop()`. */
  private busy: Promise<void> = Promise.resolve();

  constructor(private readonly deps: LeaderElectorDeps) {
    const problems = leaseTimingProblems(deps.timing);
    if (problems.length > 0) throw new Error(`coordination: ${problems.join("; ")}`);
  }

  get holder(): string {
    return this.deps.holder;
  }

  get isLeader(): boolean {
    return this.current() !== null;
  }

  term(): LeaseTerm | undefined {
    const held = this.current();
    return held ? { name: this.deps.name, holder: this.deps.holder, generation: held.generation } : undefined;
  }

  onChange(listener: LeadershipListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Subscribes to failed renewals: a renewal the store answered with an error while this replica
   * held the lease (the term lasts until its deadline; a refusal or no answer in time ends it and is
   * announced through `onChange`). Returns the unsubscribe function.
   */
  onRenewalFailure(listener: () => void): () => void {
    this.renewalFailureListeners.add(listener);
    return () => this.renewalFailureListeners.delete(listener);
  }

  /** Starts asking for the lease at once, then every `renew_interval_s`. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.tick();
  }

  /**
   * Stops the loop; when leader, announces the loss, waits for the listeners, then releases the
   * lease. Idempotent.
   */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.busy;
    const held = this.held;
    if (!held) return;
    // Released only while the term is still ours by our own clock: past the deadline a peer may
    // hold the lease, and the store would refuse the stale generation anyway.
    const stillHeld = this.current() !== null;
    await this.stepDown("shutdown");
    if (!stillHeld) return;
    try {
      const released = await this.deps.store.release(this.deps.name, this.deps.holder, held.generation);
      this.deps.logger.info({ generation: held.generation, released }, "management lease released");
    } catch (error) {
      this.deps.logger.warn({ err: String(error) }, "could not release the management lease");
    }
  }

  /** The held term if still within its deadline. */
  private current(): Held | null {
    const held = this.held;
    if (!held) return null;
    return termStillHeld(held.confirmedAt, this.deps.clock.monotonic(), this.deps.timing) ? held : null;
  }

  private tick(): void {
    if (!this.running) return;
    this.busy = this.busy.then(() => this.attempt());
    void this.busy.then(() => {
      if (!this.running) return;
      this.timer = setTimeout(() => this.tick(), this.deps.timing.renewIntervalS * 1000);
      this.timer.unref();
    });
  }

  private async attempt(): Promise<void> {
    if (!this.running) return;
    const { store, clock, logger, name, holder, timing } = this.deps;
    const epoch = this.epoch;
    const sentAt = clock.monotonic();
    const held = this.held;
    try {
      if (held) {
        // A term already past its deadline is not renewed: it ends here, and the next tick asks anew.
        if (this.current() === null) return await this.stepDown("renew_deadline_passed");
        let answered = false;
        const request = store.renew(name, holder, held.generation, timing.leaseTtlS).then((view) => {
          answered = true;
          return view;
        });
        const renewed = await this.race(request, held);
        if (epoch !== this.epoch || !this.held) return;
        if (renewed) this.confirm(held.generation, sentAt);
        // No answer before the deadline, or the store's refusal (another holder or generation).
        else await this.stepDown(answered ? "renewal_refused" : "renew_deadline_passed");
        return;
      }
      // Bounded like a renewal: a request stuck on a dead connection must not keep this replica from
      // asking again once the store is back. A late success it ignores is re-acquired (same
      // holder, same generation) by the next attempt.
      const result = await this.within(
        store.acquire(name, holder, timing.leaseTtlS),
        timing.renewDeadlineS * 1000,
      );
      if (epoch !== this.epoch || !this.running || result === undefined) return;
      // Too slow: the reply came after the deadline of the term it would open.
      if (!result.acquired || !termStillHeld(sentAt, clock.monotonic(), timing)) return;
      this.held = { generation: result.lease.generation, confirmedAt: sentAt };
      this.armDeadline();
      logger.info({ generation: result.lease.generation }, "elected: this replica manages the fleet");
      await this.announce({ leader: true, generation: result.lease.generation });
    } catch (error) {
      logger.warn({ err: String(error), leader: held !== null }, "management lease request failed");
      if (held) for (const listener of this.renewalFailureListeners) listener();
      if (epoch === this.epoch && this.held && this.current() === null)
        await this.stepDown("renew_deadline_passed");
    }
  }

  /**
   * Waits for a renewal, but no longer than the term's deadline: a hung store must not keep this
   * replica acting as leader. Undefined when the deadline came first.
   */
  private race<T>(request: Promise<T>, held: Held): Promise<T | undefined> {
    const left = held.confirmedAt + this.deps.timing.renewDeadlineS * 1000 - this.deps.clock.monotonic();
    return this.within(request, left);
  }

  /** The request's answer, or undefined when `ms` pass first. */
  private within<T>(request: Promise<T>, ms: number): Promise<T | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), Math.max(0, ms));
    });
    // A late failure of the abandoned request is of no interest.
    request.catch(() => undefined);
    return Promise.race([request, deadline]).finally(() => clearTimeout(timer));
  }

  private confirm(generation: number, sentAt: number): void {
    if (!this.held || this.held.generation !== generation) return;
    this.held.confirmedAt = Math.max(this.held.confirmedAt, sentAt);
    this.armDeadline();
  }

  /** Announces the step-down when the deadline passes between renewals (the loop may be busy). */
  private armDeadline(): void {
    if (this.deadlineTimer) clearTimeout(this.deadlineTimer);
    const held = this.held;
    if (!held) return;
    const left = held.confirmedAt + this.deps.timing.renewDeadlineS * 1000 - this.deps.clock.monotonic();
    this.deadlineTimer = setTimeout(() => {
      this.deadlineTimer = null;
      if (this.held === held && this.current() === null) {
        this.busy = this.busy.then(() =>
          this.held === held ? this.stepDown("renew_deadline_passed") : undefined,
        );
      }
    }, Math.max(0, left) + 1);
    this.deadlineTimer.unref();
  }

  private async stepDown(reason: StepDownReason): Promise<void> {
    const held = this.held;
    if (!held) return;
    this.held = null;
    this.epoch += 1;
    if (this.deadlineTimer) clearTimeout(this.deadlineTimer);
    this.deadlineTimer = null;
    this.deps.logger.warn(
      { generation: held.generation, reason },
      "stepped down: this replica no longer manages the fleet",
    );
    await this.announce({ leader: false, generation: held.generation, reason });
  }

  private async announce(change: LeadershipChange): Promise<void> {
    await Promise.all(
      [...this.listeners].map(async (listener) => {
        try {
          await listener(change);
        } catch (error) {
          this.deps.logger.error({ err: String(error), leader: change.leader }, "leadership listener failed");
        }
      }),
    );
  }
}
