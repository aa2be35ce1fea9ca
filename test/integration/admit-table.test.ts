import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { admit } from "../../src/app/admit.js";
import { OPERATIONS, TOOL_EXPOSURES } from "../../src/app/catalog.js";
import type { RequestContext } from "../../src/app/context.js";
import type { Operation } from "../../src/app/operation.js";
import { GatewayError } from "../../src/domain/errors.js";
import { admitTool, callManagementTool } from "../../src/edges/mcp/management-server.js";
import { fleetYaml, startTestGateway, type TestGateway } from "../support/gateway.js";

const ROLES = ["admin", "developer", "auditor", "service-account"] as const;
const SCOPES = ["global", "tenant:t1"] as const;

let gw: TestGateway;

beforeAll(async () => {
  const assignments = ROLES.flatMap((role) =>
    SCOPES.map((scope) => `    - {principal: "${role}@${scope}", role: ${role}, scope: "${scope}"}`),
  ).join("\n");
  gw = await startTestGateway(`
auth:
  enabled: true
  role_assignments:
${assignments}
    - {principal: "math-only", role: math-caller}
${fleetYaml()}`);
  await gw.gateway.services.repositories.roles.create({
    role_name: "math-caller",
    description: "",
    permissions: ["tool:invoke:math"],
    created_at: Date.now() / 1000,
    created_by: "test",
  });
  gw.gateway.services.authorizer.invalidate();
});
afterAll(async () => {
  await gw?.close();
});

const caller = (id: string, channel: RequestContext["channel"] = "mcp-http"): RequestContext => ({
  principal: { id, type: "api_key", tenant_id: null, roles: [] },
  authenticated: true,
  channel,
});

/** `admit`'s answer in a word: refused (and how), or admitted (and confined to which tenant). */
async function outcome(operation: Operation, ctx: RequestContext): Promise<string> {
  try {
    const admitted = await admit(gw.gateway.services, operation, ctx);
    return admitted.confinedTo ? `confined:${admitted.confinedTo}` : "admitted";
  } catch (error) {
    if (error instanceof GatewayError) return error.type === "AccessDeniedError" ? "denied" : error.type;
    throw error;
  }
}

const op = OPERATIONS;
const CASES: [string, Operation][] = [
  ["listServers", op.listServers],
  ["startServer", op.startServer],
  ["toolHistory (tenant-aware)", op.toolHistory],
  ["listApprovals (tenant-aware)", op.listApprovals],
  ["callTools", op.callTools],
  ["relayToolCall (front door)", op.relayToolCall],
  ["gatewayMetrics", op.gatewayMetrics],
  ["createApiKey (admin only)", op.createApiKey],
  ["whoami (any authenticated)", op.whoami],
];

/** Expected outcome by role and scope, in the order of CASES. */
const A = "admitted";
const D = "denied";
const T = "confined:t1";
const EXPECTED: Record<string, Record<string, string[]>> = {
  admin: { global: [A, A, A, A, A, A, A, A, A], "tenant:t1": [D, D, T, T, D, D, D, D, A] },
  developer: { global: [A, A, A, D, A, A, D, D, A], "tenant:t1": [D, D, T, D, D, D, D, D, A] },
  auditor: { global: [D, D, D, A, D, D, A, D, A], "tenant:t1": [D, D, D, T, D, D, D, D, A] },
  "service-account": { global: [D, D, D, D, A, A, D, D, A], "tenant:t1": [D, D, D, D, D, D, D, D, A] },
};

describe("admit over roles x scopes x operations", () => {
  for (const role of ROLES) {
    for (const scope of SCOPES) {
      it(`admits ${role} at ${scope} exactly to what its grants cover`, async () => {
        const got: string[] = [];
        for (const [, operation] of CASES) got.push(await outcome(operation, caller(`${role}@${scope}`)));
        const named = (outcomes: string[]) => CASES.map(([name], index) => `${name}: ${outcomes[index]}`);
        expect(named(got)).toEqual(named(EXPECTED[role]?.[scope] ?? []));
      });
    }
  }

  it("asks a caller without identity to authenticate: an unknown stdio client, an anonymous caller", async () => {
    const stdio: RequestContext = { ...caller("nobody", "mcp-stdio"), authenticated: false };
    expect(await outcome(op.listServers, stdio)).toBe("AuthenticationError");
    const anonymous: RequestContext = { ...caller("anonymous", "rest"), authenticated: false };
    expect(await outcome(op.whoami, anonymous)).toBe("AuthenticationError");
  });

  it("names the first permission the roles lack in its refusal, and publishes one denial", async () => {
    const published: unknown[] = [];
    const unsubscribe = gw.gateway.services.bus.subscribe((event) => published.push(event));
    try {
      await admit(gw.gateway.services, op.registerServer, caller("developer@global"), {
        route: "test:register",
      });
      expect.unreachable();
    } catch (error) {
      // developer holds mcp_servers:write and mcp_servers:lifecycle (providers:*), not policy:write.
      expect((error as GatewayError).details).toEqual({ permission: "policy:write" });
    } finally {
      unsubscribe();
    }
    expect(published).toEqual([
      expect.objectContaining({
        type: "AuthorizationDenied",
        principal_id: "developer@global",
        resource: "test:register",
      }),
    ]);
  });

  it("admits a caller granted tool:invoke for some servers only per resource", async () => {
    const admitted = await admit(gw.gateway.services, op.callTools, caller("math-only"));
    expect(admitted.perResource).toBe(true);
    expect(await outcome(op.relayToolCall, caller("math-only"))).toBe("denied");
  });
});

describe("a gateway_call batch is decided once per call", () => {
  const exposure = TOOL_EXPOSURES.find((tool) => tool.name === "gateway_call");
  const batch = {
    calls: [1, 2, 3].map((a) => ({ mcp_server: "math", tool: "add", arguments: { a, b: 1 } })),
  };

  const decisions = async (principal: string) => {
    if (!exposure) throw new Error("gateway_call is not exposed");
    const { services, edges } = gw.gateway;
    const decide = vi.spyOn(services.authorizer, "decide");
    try {
      const admitted = await admitTool(edges, exposure, batch, caller(principal));
      const result = await callManagementTool(edges, exposure, batch, admitted);
      const payload = JSON.parse(result.content[0]?.text ?? "{}");
      return { calls: decide.mock.calls.length, succeeded: payload.succeeded as number };
    } finally {
      decide.mockRestore();
    }
  };

  it("decides a globally granted caller once for the whole batch", async () => {
    expect(await decisions("developer@global")).toEqual({ calls: 1, succeeded: 3 });
  });

  it("decides a caller granted some servers only once for the batch and once for each call", async () => {
    expect(await decisions("math-only")).toEqual({ calls: 4, succeeded: 3 });
  });
});
