import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "../support/api-keys.js";
import { fleetYaml, startTestGateway, type TestGateway } from "../support/gateway.js";

/**
 * `POST /api/maintenance/compact {stream_id}`: validated (422), looked up (404), and refused with
 * the earlier revision's 500 since the event store takes no snapshots; nothing is ever removed.
 */
let gw: TestGateway;
const keys: Record<string, string> = {};

beforeAll(async () => {
  gw = await startTestGateway(`
auth:
  enabled: true
  rate_limit: {max_attempts: 100000}
  role_assignments:
    - {principal: root, role: admin}
    - {principal: vic, role: viewer}
${fleetYaml()}`);
  for (const name of ["root", "vic"]) keys[name] = await createApiKey(gw, name);
});
afterAll(async () => {
  await gw?.close();
});

const compact = (payload: unknown, key = keys.root as string) =>
  gw.app.inject({
    method: "POST",
    url: "/api/maintenance/compact",
    headers: { "x-api-key": key, ...(payload !== undefined && { "content-type": "application/json" }) },
    ...(payload !== undefined && { payload: JSON.stringify(payload) }),
  });

describe("POST /api/maintenance/compact", () => {
  it("answers 422 naming stream_id when it is missing, empty, blank or not a string", async () => {
    for (const body of [
      undefined,
      {},
      { stream_id: "" },
      { stream_id: "   " },
      { stream_id: 42 },
      { stream_id: null },
    ]) {
      const res = await compact(body);
      expect([JSON.stringify(body), res.statusCode]).toEqual([JSON.stringify(body), 422]);
      expect(res.json().error).toMatchObject({
        code: "ValidationError",
        message:
          "Invalid field 'stream_id': must be a non-empty string of at most 512 characters, without NUL",
      });
    }
  });

  it("answers 422 naming a field it does not take", async () => {
    const res = await compact({ stream_id: "gateway", keep_last: 10 });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.message).toBe("Invalid field 'keep_last': is not a field this request takes");
  });

  it("answers 404 StreamNotFoundError for a stream no event was recorded in", async () => {
    const res = await compact({ stream_id: "mcp_server:ghost" });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({
      error: {
        code: "StreamNotFoundError",
        message: "Event stream not found: mcp_server:ghost",
        details: { stream_id: "mcp_server:ghost" },
      },
    });
  });

  it("answers 500 SnapshotNotFoundError for a known stream, saying why, and removes nothing", async () => {
    const start = await gw.app.inject({
      method: "POST",
      url: "/api/mcp_servers/math/start",
      headers: { "x-api-key": keys.root as string },
    });
    expect(start.statusCode).toBe(200);
    const { eventStore } = gw.gateway.services;
    await eventStore.flush();
    const before = await eventStore.readStream("mcp_server:math", { limit: 10_000 });
    expect(before.length).toBeGreaterThan(0);

    const res = await compact({ stream_id: "mcp_server:math" });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({
      error: {
        code: "SnapshotNotFoundError",
        message:
          "No snapshot exists for event stream 'mcp_server:math': the event store keeps every event " +
          "and takes no snapshots, so nothing was compacted",
        details: { stream_id: "mcp_server:math" },
      },
    });
    expect(await eventStore.readStream("mcp_server:math", { limit: 10_000 })).toEqual(before);
  });

  it("refuses a read-only key (403) before reading anything", async () => {
    const res = await compact({ stream_id: "gateway" }, keys.vic);
    expect(res.statusCode).toBe(403);
    expect(res.json().error.message).toBe("Access denied: maintenance:compact permission required");
  });
});
