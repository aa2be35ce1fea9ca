import { describe, expect, it } from "vitest";
import { parseIsoTime } from "../../src/app/operations/auth/fields.js";

describe("ISO 8601 times of auth requests", () => {
  it.each([
    ["2026-01-31", "2026-01-31T00:00:00.000Z"],
    ["2026-01-31T12:30:00Z", "2026-01-31T12:30:00.000Z"],
    ["2026-01-31T12:30", "2026-01-31T12:30:00.000Z"],
    ["2026-01-31T12:30:00.123456Z", "2026-01-31T12:30:00.123Z"],
    ["2026-01-31T14:30:00+02:00", "2026-01-31T12:30:00.000Z"],
    ["2026-01-31T10:30:00-0200", "2026-01-31T12:30:00.000Z"],
    ["2024-02-29T00:00:00Z", "2024-02-29T00:00:00.000Z"],
  ])("read %s as %s", (text, iso) => {
    const ms = parseIsoTime(text);
    expect(ms).not.toBeNull();
    expect(new Date(ms as number).toISOString()).toBe(iso);
  });

  it.each([
    "2026-02-30",
    "2025-02-29",
    "2026-13-01",
    "2026-01-31T24:00:00Z",
    "2026-01-31T12:60",
    "tomorrow",
    "",
    "1700000000",
  ])("refuse %j", (text) => {
    expect(parseIsoTime(text)).toBeNull();
  });
});
