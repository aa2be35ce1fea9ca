import pino from "pino";
import { NodeHasher } from "../../src/adapters/system/node-hasher.js";
import { NodeIdGenerator } from "../../src/adapters/system/node-ids.js";
import { SystemClock } from "../../src/adapters/system/system-clock.js";
import { SubprocessUpstreamFactory } from "../../src/adapters/upstream/subprocess/subprocess-upstream-factory.js";
import { EventBus } from "../../src/app/event-bus.js";
import { Fleet } from "../../src/app/fleet/fleet.js";
import { ToolInvoker } from "../../src/app/fleet/tool-invoker.js";
import type { Clock } from "../../src/app/ports/clock.js";
import { readEnvSettings } from "../../src/config/env.js";
import type { DomainEvent } from "../../src/domain/events.js";
import { SERVER_DEFAULTS, type ServerSpec } from "../../src/domain/server/server-spec.js";
import { CONTROLLABLE } from "./gateway.js";

/** What a gateway passes its children from its own environment (config/env.ts decides which). */
const TEST_BASE_ENV = readEnvSettings(process.env).settings.childBaseEnv;

/** A clock the test moves by hand: wall and monotonic time advance together. */
export class ManualClock implements Clock {
  private wall = Date.UTC(2026, 0, 1);
  private mono = 1_000;

  now(): number {
    return this.wall;
  }

  monotonic(): number {
    return this.mono;
  }

  advance(ms: number): void {
    this.wall += ms;
    this.mono += ms;
  }
}

export interface FleetHarness {
  fleet: Fleet;
  invoker: ToolInvoker;
  bus: EventBus;
  events: DomainEvent[];
  close(): Promise<void>;
}

/** A fleet over real subprocess upstreams; `random` 0.5 means no backoff jitter. */
export function makeFleet(
  options: {
    clock?: Clock;
    maxConcurrency?: number;
    defaultServerConcurrency?: number;
    maxResponseBytes?: number;
  } = {},
): FleetHarness {
  const clock = options.clock ?? new SystemClock();
  const logger = pino({ level: "silent" });
  const bus = new EventBus({ clock, ids: new NodeIdGenerator(), logger, instanceId: "test" });
  const events: DomainEvent[] = [];
  bus.subscribe((event) => events.push(event));
  const fleet = new Fleet({
    factories: { subprocess: new SubprocessUpstreamFactory({ baseEnv: TEST_BASE_ENV }) },
    bus,
    clock,
    hasher: new NodeHasher(),
    logger,
    random: () => 0.5,
    timings: { startTimeoutMs: 15_000, healthCheckTimeoutMs: 5_000 },
    defaultServerConcurrency: options.defaultServerConcurrency ?? 10,
  });
  const invoker = new ToolInvoker({
    fleet,
    bus,
    clock,
    limits: {
      maxConcurrency: options.maxConcurrency ?? 50,
      maxResponseBytes: options.maxResponseBytes ?? 33_554_432,
    },
  });
  return { fleet, invoker, bus, events, close: () => fleet.shutdown() };
}

/** A spec running the controllable test server. */
export function controllable(id: string, extra: Partial<ServerSpec> = {}): ServerSpec {
  return {
    id,
    mode: "subprocess",
    command: ["node", CONTROLLABLE],
    env: {},
    ...SERVER_DEFAULTS,
    source: "config",
    ...extra,
  };
}
