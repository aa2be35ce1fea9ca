import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONFORMANCE_FIXTURE, startFixtureHttp } from "../conformance/fixture.js";
import { ARITHMETIC, startTestGateway, type TestGateway, waitFor } from "../support/gateway.js";
import { callJson, connectHttp } from "../support/mcp-client.js";
import { envelope, STATELESS_REVISION as REVISION, statelessPost } from "../support/stateless-post.js";

/**
 * An upstream of revision 2026-07-28 (the dual-era fixture over streamable HTTP, which answers
 * `server/discover`): Airlock speaks that revision to it, with no `initialize`, and bridges its
 * `input_required` rounds to clients of either revision.
 */

type Fixture = Awaited<ReturnType<typeof startFixtureHttp>>;

const textOf = (result: unknown) =>
  (((result as { content?: unknown }).content ?? []) as { text?: string }[])
    .map((block) => block.text)
    .join("");

async function statelessCall(baseUrl: string, name: string, extra: Record<string, unknown> = {}) {
  const answer = await statelessPost(
    baseUrl,
    "tools/call",
    { name, arguments: {}, ...extra },
    { id: 3, meta: envelope({ elicitation: {} }) },
  );
  return answer.body;
}

describe("an upstream of revision 2026-07-28", () => {
  let fixture: Fixture;
  let gw: TestGateway;
  let baseUrl: string;
  beforeAll(async () => {
    fixture = await startFixtureHttp(CONFORMANCE_FIXTURE);
    gw = await startTestGateway(`
tool_access: {mode: front_door}
mcp_servers:
  modern:
    mode: remote
    endpoint: ${JSON.stringify(fixture.value)}
  pinned:
    mode: remote
    endpoint: ${JSON.stringify(fixture.value)}
    mcp_revision: session
`);
    baseUrl = await gw.app.listen({ host: "127.0.0.1", port: 0 });
    gw.gateway.startBackground();
    await waitFor(async () => {
      const detail = (await gw.app.inject({ method: "GET", url: "/api/mcp_servers/modern" })).json();
      return detail.meta?.protocol_version !== undefined;
    }, 20_000);
  }, 30_000);
  afterAll(async () => {
    await gw?.close();
    await fixture?.stop();
  });

  it("is spoken to at its own revision, as its server/discover offers, and shown so", async () => {
    const detail = (await gw.app.inject({ method: "GET", url: "/api/mcp_servers/modern" })).json();
    expect(detail.meta.protocol_version).toBe(REVISION);
    // Unless its entry asks for a session.
    await gw.app.inject({ method: "POST", url: "/api/mcp_servers/pinned/start" });
    const pinned = (await gw.app.inject({ method: "GET", url: "/api/mcp_servers/pinned" })).json();
    expect(pinned.meta.protocol_version).toBe("2025-11-25");
    const answer = await statelessCall(baseUrl, "test_simple_text");
    expect(textOf(answer.result ?? {})).toBe("This is a simple text response for testing.");
  });

  it("relays its input_required to a 2026-07-28 client under its own keys", async () => {
    const first = await statelessCall(baseUrl, "test_input_required_result_elicitation");
    expect(first.result).toMatchObject({
      resultType: "input_required",
      inputRequests: { user_name: { method: "elicitation/create" } },
      requestState: expect.any(String),
    });
    const retry = await statelessCall(baseUrl, "test_input_required_result_elicitation", {
      inputResponses: { user_name: { action: "accept", content: { name: "Lin" } } },
      requestState: first.result?.requestState,
    });
    expect(textOf(retry.result ?? {})).toBe("Hello, Lin!");
  });

  it("asks a 2025-11-25 client on its session what the upstream's input_required asks", async () => {
    const client = new Client(
      { name: "session-client", version: "1.0.0" },
      { capabilities: { elicitation: {} } },
    );
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return { action: "accept", content: { name: "Kim" } };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", baseUrl)));
    try {
      const result = await client.callTool(
        { name: "test_input_required_result_elicitation", arguments: {} },
        CallToolResultSchema,
      );
      expect(textOf(result)).toBe("Hello, Kim!");
      expect(asked).toEqual(["What is your name?"]);
    } finally {
      await client.close();
    }
  });

  it("asks each question of the client whose call it belongs to, with calls of two clients at once", async () => {
    const sessionClient = async (name: string) => {
      const client = new Client({ name, version: "1.0.0" }, { capabilities: { elicitation: {} } });
      client.setRequestHandler(ElicitRequestSchema, async () => {
        // Both calls are in flight before either is answered.
        await new Promise((resolve) => setTimeout(resolve, 100));
        return { action: "accept", content: { name } };
      });
      await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", baseUrl)));
      return client;
    };
    const clients = await Promise.all(["Ana", "Bo"].map(sessionClient));
    try {
      const results = await Promise.all(
        clients.map((client) =>
          client.callTool(
            { name: "test_input_required_result_elicitation", arguments: {} },
            CallToolResultSchema,
          ),
        ),
      );
      expect(results.map(textOf)).toEqual(["Hello, Ana!", "Hello, Bo!"]);
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
  });

  it("refuses the upstream's question for a 2025-11-25 client that cannot answer it", async () => {
    const client = new Client({ name: "no-elicitation", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", baseUrl)));
    try {
      const outcome = await client
        .callTool({ name: "test_input_required_result_elicitation", arguments: {} }, CallToolResultSchema)
        .then(
          (result) => textOf(result),
          (error: Error) => error.message,
        );
      expect(outcome).toContain("elicitation");
      expect(outcome).not.toContain("Hello");
    } finally {
      await client.close();
    }
  });

  it("serves an SDK v2 client's rounds end to end", async () => {
    const client = new ModernClient(
      { name: "modern-client", version: "1.0.0" },
      { versionNegotiation: { mode: "auto" }, capabilities: { elicitation: {} } },
    );
    client.setRequestHandler("elicitation/create", async () => ({
      action: "accept",
      content: { name: "Ode" },
    }));
    await client.connect(new ModernTransport(new URL("/mcp", baseUrl)));
    try {
      const result = await client.callTool({ name: "test_input_required_result_multi_round", arguments: {} });
      expect(textOf(result)).toMatch(/^Hello Ode, your favourite colour is /);
    } finally {
      await client.close();
    }
  });
});

describe("a child process at the revision its mcp_revision asks", () => {
  let gw: TestGateway;
  let baseUrl: string;
  const detail = async (id: string) =>
    (await gw.app.inject({ method: "GET", url: `/api/mcp_servers/${id}` })).json();
  const start = (id: string) => gw.app.inject({ method: "POST", url: `/api/mcp_servers/${id}/start` });
  beforeAll(async () => {
    gw = await startTestGateway(`
tool_access: {mode: front_door}
mcp_servers:
  modern:
    command: [node, ${JSON.stringify(CONFORMANCE_FIXTURE)}, stdio]
    mcp_revision: stateless
  either:
    command: [node, ${JSON.stringify(CONFORMANCE_FIXTURE)}, stdio]
    mcp_revision: auto
  sessions_only:
    command: [node, ${JSON.stringify(ARITHMETIC)}]
    mcp_revision: auto
  insists:
    command: [node, ${JSON.stringify(ARITHMETIC)}]
    mcp_revision: stateless
`);
    baseUrl = await gw.app.listen({ host: "127.0.0.1", port: 0 });
  }, 30_000);
  afterAll(async () => {
    await gw?.close();
  });

  it("speaks 2026-07-28 to a child that offers it, a session to one that does not", async () => {
    for (const [id, revision] of [
      ["modern", REVISION],
      ["either", REVISION],
      ["sessions_only", "2025-11-25"],
    ] as const) {
      expect((await start(id)).statusCode, id).toBe(200);
      expect((await detail(id)).meta.protocol_version, id).toBe(revision);
    }
  });

  it("refuses to start a child that mcp_revision: stateless requires to offer 2026-07-28", async () => {
    const refused = await start("insists");
    expect(refused.statusCode).not.toBe(200);
    expect((await detail("insists")).dead?.reason).toBe("start_failed");
    // The reason, as gateway_start tells it.
    const client = await connectHttp(baseUrl);
    try {
      const { text } = await callJson(client, "gateway_start", { mcp_server: "insists" });
      expect(text).toContain("server/discover did not offer protocol revision 2026-07-28");
    } finally {
      await client.close();
    }
  });

  it("relays a stateless child's own input keys to a 2026-07-28 client", async () => {
    await waitFor(async () => {
      const answer = await statelessCall(baseUrl, "test_simple_text");
      return answer.result !== undefined;
    }, 20_000);
    const first = await statelessCall(baseUrl, "test_input_required_result_elicitation");
    expect(first.result).toMatchObject({ inputRequests: { user_name: { method: "elicitation/create" } } });
    const retry = await statelessCall(baseUrl, "test_input_required_result_elicitation", {
      inputResponses: { user_name: { action: "accept", content: { name: "Io" } } },
      requestState: first.result?.requestState,
    });
    expect(textOf(retry.result)).toBe("Hello, Io!");
  });
});
