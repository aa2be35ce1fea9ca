import { describe, expect, it } from "vitest";
import type { Logger } from "../../../src/app/ports/logger.js";
import { Closers } from "../../../src/composition/closers.js";

interface Line {
  level: string;
  fields: Record<string, unknown>;
  message: string;
}

function recordingLogger(): { logger: Logger; lines: Line[] } {
  const lines: Line[] = [];
  const record = (level: string) => (fields: Record<string, unknown>, message: string) => {
    lines.push({ level, fields, message });
  };
  return {
    lines,
    logger: { debug: record("debug"), info: record("info"), warn: record("warn"), error: record("error") },
  };
}

describe("the close-order registry", () => {
  it("closes what was opened last first, each once", async () => {
    const { logger } = recordingLogger();
    const closers = new Closers(logger);
    const closed: string[] = [];
    for (const name of ["storage", "records", "fleet", "endpoint"])
      closers.opened(name, () => closed.push(name));
    await closers.closeAll();
    await closers.closeAll();
    expect(closed).toEqual(["endpoint", "fleet", "records", "storage"]);
  });

  it("waits for each close before the next one begins", async () => {
    const { logger } = recordingLogger();
    const closers = new Closers(logger);
    const steps: string[] = [];
    closers.opened("first", () => steps.push("first closed"));
    closers.opened("second", async () => {
      steps.push("second closing");
      await new Promise((resolve) => setTimeout(resolve, 20));
      steps.push("second closed");
    });
    await closers.closeAll();
    expect(steps).toEqual(["second closing", "second closed", "first closed"]);
  });

  it("logs a close that throws or rejects, naming it, and still closes the rest", async () => {
    const { logger, lines } = recordingLogger();
    const closers = new Closers(logger);
    const closed: string[] = [];
    closers.opened("storage", () => closed.push("storage"));
    closers.opened("fleet", () => {
      throw new Error("child did not exit");
    });
    closers.opened("records", () => Promise.reject(new Error("disk full")));
    closers.opened("endpoint", () => closed.push("endpoint"));
    await expect(closers.closeAll()).resolves.toBeUndefined();
    expect(closed).toEqual(["endpoint", "storage"]);
    const errors = lines.filter((line) => line.level === "error");
    expect(errors).toEqual([
      {
        level: "error",
        fields: { resource: "records", err: "Error: disk full" },
        message: "records did not close cleanly",
      },
      {
        level: "error",
        fields: { resource: "fleet", err: "Error: child did not exit" },
        message: "fleet did not close cleanly",
      },
    ]);
  });

  it("leaves a close that outlasts its bound behind, logged, and goes on", async () => {
    const { logger, lines } = recordingLogger();
    const closers = new Closers(logger, 50);
    const closed: string[] = [];
    closers.opened("storage", () => closed.push("storage"));
    closers.opened("hung", () => new Promise(() => {}));
    const began = Date.now();
    await closers.closeAll();
    expect(Date.now() - began).toBeLessThan(2_000);
    expect(closed).toEqual(["storage"]);
    expect(lines).toContainEqual({
      level: "error",
      fields: { resource: "hung", bound_ms: 50 },
      message: "hung did not close in time",
    });
  });

  it("says at debug level what it closed, in order", async () => {
    const { logger, lines } = recordingLogger();
    const closers = new Closers(logger);
    closers.opened("a", () => undefined);
    closers.opened("b", () => undefined);
    await closers.closeAll();
    expect(lines.filter((line) => line.level === "debug").map((line) => line.fields.resource)).toEqual([
      "b",
      "a",
    ]);
  });

  it("closes at once what opens after closing began", async () => {
    const { logger } = recordingLogger();
    const closers = new Closers(logger);
    const closed: string[] = [];
    let release = () => {};
    closers.opened("slow", () => new Promise<void>((resolve) => (release = resolve)));
    const closing = closers.closeAll();
    closers.opened("late", () => closed.push("late"));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(closed).toEqual(["late"]);
    release();
    await closing;
  });
});
