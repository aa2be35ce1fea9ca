import { describe, expect, it } from "vitest";
import { ANONYMOUS } from "../../src/app/context.js";
import { routeCall } from "../../src/app/routing/route-call.js";
import { createGateway, type Gateway } from "../../src/composition/create-gateway.js";
import { memoryStorage } from "../../src/composition/open-storage.js";
import { parseConfig } from "../../src/config/load.js";
import { CONTROLLABLE } from "../support/gateway.js";

/** Nothing listens on port 1 of the loopback address: connections are refused at once. */
const NO_REDIS = "redis://127.0.0.1:1/0";

interface Line {
  level: string;
  fields: Record<string, unknown>;
  message: string;
}

/** Starts a gateway from YAML with a logger that keeps its lines; the start may be refused. */
async function boot(yaml: string): Promise<{ gateway?: Gateway; error?: Error; lines: Line[] }> {
  const lines: Line[] = [];
  const record = (level: string) => (fields: Record<string, unknown>, message: string) =>
    lines.push({ level, fields, message });
  const logger = {
    debug: record("debug"),
    info: record("info"),
    warn: record("warn"),
    error: record("error"),
  };
  const { config, env } = parseConfig(yaml, { env: { PATH: process.env.PATH } });
  try {
    const gateway = await createGateway({
      config,
      env,
      logger,
      instanceLabel: "test",
      storage: memoryStorage(),
    });
    return { gateway, lines };
  } catch (error) {
    return { error: error as Error, lines };
  }
}

const held = (channel: string) => `
mcp_servers:
  hooked:
    command: [node, ${JSON.stringify(CONTROLLABLE)}]
    tools: {approval_list: [echo], approval_channel: ${channel}}
`;

describe("startup checks of the approval gate", () => {
  it("refuse the boot when delivery is required and the channel's Redis is unreachable", async () => {
    const { gateway, error } = await boot(`
approvals:
  delivery: {required: true, redis_url: "${NO_REDIS}"}
  webhook: {url: "http://127.0.0.1:9/hook"}
${held("webhook")}`);
    await gateway?.shutdown();
    expect(error?.message).toMatch(/^startup checks refused the boot:/);
    expect(error?.message).toContain("approvals.webhook: Redis at redis://127.0.0.1:1/0 did not answer");
  });

  it("refuse the boot when delivery is required and a channel has no installed adapter", async () => {
    const { error } = await boot(`
approvals:
  delivery: {required: true}
  teams: {url: "http://127.0.0.1:9/teams"}
${held("teams")}`);
    expect(error?.message).toContain("approvals.teams: no delivery adapter is installed for channel teams");
  });

  it("refuse the boot when delivery is required and no Redis is configured for an adapter's channel", async () => {
    const { error } = await boot(`
approvals:
  delivery: {required: true}
  webhook: {url: "http://127.0.0.1:9/hook"}
${held("webhook")}`);
    expect(error?.message).toContain("approvals.delivery.redis_url is not set");
  });

  it("start with an error log naming the subsystem when delivery is not required", async () => {
    const { gateway, error, lines } = await boot(`
approvals:
  delivery: {redis_url: "${NO_REDIS}"}
  webhook: {url: "http://127.0.0.1:9/hook"}
${held("webhook")}`);
    try {
      expect(error).toBeUndefined();
      expect(lines).toContainEqual(
        expect.objectContaining({
          level: "error",
          message: "subsystem_configured_but_unreachable",
          fields: expect.objectContaining({ subsystem: "approvals.webhook" }),
        }),
      );
      expect(gateway?.services.approvals).toBeDefined();
    } finally {
      await gateway?.shutdown();
    }
  });

  it("turn a refusal into an error log with startup_checks.enforce false", async () => {
    const { gateway, error, lines } = await boot(`
startup_checks: {enforce: false}
approvals:
  delivery: {required: true, redis_url: "${NO_REDIS}"}
  webhook: {url: "http://127.0.0.1:9/hook"}
${held("webhook")}`);
    try {
      expect(error).toBeUndefined();
      expect(lines).toContainEqual(
        expect.objectContaining({
          level: "error",
          fields: expect.objectContaining({ event: "startup_check_failed", subsystem: "approvals.webhook" }),
        }),
      );
    } finally {
      await gateway?.shutdown();
    }
  });

  it("start with an error log, and refuse the held tool, when no gate exists and enforce is false", async () => {
    const yaml = `
startup_checks: {enforce: false}
approvals: {enabled: false}
${held("event_stream")}`;
    // Enforced, the configuration itself is refused (what `airlock config check` reports too).
    expect(() => parseConfig(yaml.replace("enforce: false", "enforce: true"))).toThrow(
      /approval_list: holds calls for approval but approvals.enabled is false/,
    );
    const { gateway, error, lines } = await boot(yaml);
    try {
      expect(error).toBeUndefined();
      expect(lines).toContainEqual(
        expect.objectContaining({
          level: "error",
          fields: expect.objectContaining({ event: "startup_check_failed", subsystem: "approvals" }),
        }),
      );
      const { fleet } = gateway!.services;
      const ctx = { principal: ANONYMOUS, authenticated: false, channel: "rest" as const };
      const call = routeCall(
        gateway!.services,
        ctx,
        "hooked",
        "echo",
        { message: "x" },
        {
          callId: "held",
          timeoutMs: 5_000,
        },
      );
      await expect(call).rejects.toMatchObject({
        type: "ToolAccessDeniedError",
        details: { reason: "approval_required" },
      });
      expect(fleet.require("hooked").stats.total_invocations).toBe(0);
    } finally {
      await gateway?.shutdown();
    }
  });

  it("never put a signing secret or a webhook URL's secret path in what it logs", async () => {
    const { gateway, lines } = await boot(`
approvals:
  delivery: {redis_url: "${NO_REDIS}"}
  slack:
    webhook_url: "http://127.0.0.1:9/services/T000/B000/XXXXSECRETXXXX"
    signing_secret: "a-signing-secret-of-some-length"
${held("slack")}`);
    await gateway?.shutdown();
    const text = JSON.stringify(lines);
    expect(text).toContain("approvals.slack");
    expect(text).not.toContain("XXXXSECRETXXXX");
    expect(text).not.toContain("a-signing-secret-of-some-length");
  });
});
