import pino from "pino";
import { expect, it } from "vitest";
import { createGateway } from "../../src/composition/create-gateway.js";
import { parseConfig } from "../../src/config/load.js";

it("says once per declared remote endpoint, at warning level and without its secrets, that SSRF rules skip it", async () => {
  const yaml = `mcp_servers:
  far:
    mode: remote
    endpoint: https://ops:s3cret-pass@mcp.example.invalid/mcp?token=abc123&region=eu
`;
  const { config, env } = parseConfig(yaml, { env: {} });
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: "warn" }, { write: (line: string) => lines.push(JSON.parse(line)) });
  const gateway = await createGateway({ config, env, logger, instanceLabel: "trusted" });
  try {
    const notices = lines.filter(
      (l) => l.msg === "trusted endpoint from configuration: SSRF policy not applied",
    );
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ mcp_server_id: "far", level: 40 });
    const endpoint = String(notices[0]?.endpoint);
    expect(endpoint).toContain("mcp.example.invalid");
    expect(endpoint).toContain("region=eu");
    expect(endpoint).not.toContain("s3cret-pass");
    expect(endpoint).not.toContain("abc123");
  } finally {
    await gateway.shutdown();
  }
});
