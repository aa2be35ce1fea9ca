import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CreateMessageRequestSchema,
  LoggingMessageNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFrontDoorAirlock } from "./airlock.js";
import {
  type BaselineEntry,
  baselineProblems,
  judgeFixture,
  judgeGateway,
  parseBaseline,
  readBaseline,
} from "./baseline.js";
import { CONFORMANCE_FIXTURE, type RunningProcess, startFixtureHttp } from "./fixture.js";
import { listServerScenarios, passing, runSuite, type ScenarioResult, type SuiteResults } from "./suite.js";

/** A suite result built by hand, for the baseline rules. */
function results(verdicts: Record<string, boolean>): SuiteResults {
  return new Map(
    Object.entries(verdicts).map(([scenario, passed]): [string, ScenarioResult] => [
      scenario,
      { scenario, passed, checks: [], problems: passed ? [] : [`${scenario}-check FAILURE: broken`] },
    ]),
  );
}

describe("the conformance baseline rules", () => {
  const baseline: BaselineEntry[] = [
    { scenario: "a", class: "fixture-limitation", reason: "the fixture cannot" },
    { scenario: "b", class: "not-relayed", reason: "the gateway does not relay it" },
  ];

  it("hold Airlock to every scenario the fixture passes alone and the baseline does not list", () => {
    const fixture = results({ a: false, b: true, c: true, d: false });
    const gateway = results({ a: false, b: false, c: false, d: false });
    expect(judgeGateway(fixture, gateway, baseline)).toEqual({
      unexpectedFailures: ["c: c-check FAILURE: broken"],
      staleEntries: [],
    });
  });

  it("call a gateway entry stale once Airlock passes its scenario, or when the fixture fails it alone", () => {
    expect(judgeGateway(results({ b: true }), results({ b: true }), baseline).staleEntries).toEqual([
      "b [not-relayed]: Airlock passes it",
    ]);
    expect(judgeGateway(results({ b: false }), results({ b: false }), baseline).staleEntries).toEqual([
      "b [not-relayed]: the fixture fails it alone, so Airlock is not judged on it",
    ]);
  });

  it("hold the fixture to every scenario but its own limitations, which go stale once it passes them", () => {
    expect(judgeFixture(results({ a: false, b: false, c: true }), baseline)).toEqual({
      unexpectedFailures: ["b: b-check FAILURE: broken"],
      staleEntries: [],
    });
    expect(judgeFixture(results({ a: true }), baseline).staleEntries).toEqual([
      "a [fixture-limitation]: the fixture passes it alone",
    ]);
  });

  it("refuse entries naming unknown scenarios or classes, duplicates and empty reasons", () => {
    const document = {
      entries: [
        { scenario: "ping", class: "not-relayed", reason: "x" },
        { scenario: "ping", class: "not-relayed", reason: "x" },
        { scenario: "pong", class: "made-up", reason: "" },
      ],
    };
    expect(baselineProblems(document, ["ping"])).toEqual([
      "entries[1]: scenario ping is listed twice",
      'entries[2]: scenario "pong" is not a server scenario of the suite',
      expect.stringContaining('entries[2]: class "made-up" is not one of fixture-limitation,'),
      "entries[2]: reason must be one non-empty line",
    ]);
  });
});

describe("the MCP conformance suite", () => {
  let scenarios: string[];
  let baseline: BaselineEntry[];
  let fixtureHttp: RunningProcess & { value: string };
  let fixtureResults: SuiteResults;

  beforeAll(async () => {
    scenarios = await listServerScenarios();
    fixtureHttp = await startFixtureHttp();
    fixtureResults = await runSuite(fixtureHttp.value, scenarios);
    // Room for the suite's own bound (90 s) on two cores shared with the other test files.
  }, 120_000);

  afterAll(async () => {
    await fixtureHttp?.stop();
  });

  it("has a baseline that names known scenarios once each, with a known class and a one-line reason", () => {
    expect(baselineProblems(readBaseline(), scenarios)).toEqual([]);
    baseline = parseBaseline(readBaseline(), scenarios);
  });

  it("passes on the fixture alone over HTTP, except the fixture's classified limitations", () => {
    baseline ??= parseBaseline(readBaseline(), scenarios);
    const judgement = judgeFixture(fixtureResults, baseline);
    expect(judgement.unexpectedFailures, "scenarios the fixture fails alone").toEqual([]);
    expect(judgement.staleEntries, "stale baseline entries").toEqual([]);
    // The fixture implements every scenario's server side: most of the suite must pass on it.
    expect(passing(fixtureResults).length).toBeGreaterThanOrEqual(scenarios.length - 2);
  });

  it("finds the same tools, resources and prompts on the fixture over stdio as over HTTP", async () => {
    const overHttp = new Client({ name: "conformance-surface", version: "1.0.0" });
    await overHttp.connect(new StreamableHTTPClientTransport(new URL(fixtureHttp.value)));
    const overStdio = new Client(
      { name: "conformance-surface", version: "1.0.0" },
      { capabilities: { sampling: {} } },
    );
    overStdio.setRequestHandler(CreateMessageRequestSchema, async () => ({
      role: "assistant",
      content: { type: "text", text: "sampled over stdio" },
      model: "test-model",
    }));
    await overStdio.connect(
      new StdioClientTransport({ command: process.execPath, args: [CONFORMANCE_FIXTURE, "stdio"] }),
    );
    try {
      const surface = async (client: Client) => ({
        capabilities: client.getServerCapabilities(),
        tools: (await client.listTools()).tools,
        resources: (await client.listResources()).resources,
        templates: (await client.listResourceTemplates()).resourceTemplates,
        prompts: (await client.listPrompts()).prompts,
      });
      const stdio = await surface(overStdio);
      expect(stdio).toEqual(await surface(overHttp));
      expect(stdio.tools.map((tool) => tool.name)).toContain("test_sampling");

      // Notifications and server-to-client requests work over stdio too: what the gateway relays.
      const logs: unknown[] = [];
      overStdio.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
        logs.push(notification.params.data);
      });
      await overStdio.callTool({ name: "test_tool_with_logging", arguments: {} });
      // Notification handlers run a microtask after the message is read; the result may come first.
      for (let tries = 0; logs.length < 3 && tries < 20; tries++) await new Promise((r) => setTimeout(r, 50));
      expect(logs).toEqual(["Tool execution started", "Tool processing data", "Tool execution completed"]);
      const sampled = await overStdio.callTool({ name: "test_sampling", arguments: { prompt: "hello" } });
      expect(sampled.content).toEqual([{ type: "text", text: "LLM response: sampled over stdio" }]);
    } finally {
      await overStdio.close();
      await overHttp.close();
    }
  });

  it("passes through Airlock's /mcp in front-door mode wherever it passes on the fixture alone, except the classified baseline", async () => {
    baseline ??= parseBaseline(readBaseline(), scenarios);
    const airlock = await startFrontDoorAirlock();
    let gatewayResults: SuiteResults;
    try {
      gatewayResults = await runSuite(airlock.mcpUrl, scenarios);
    } finally {
      await airlock.stop();
    }
    const judgement = judgeGateway(fixtureResults, gatewayResults, baseline);
    expect(
      judgement.unexpectedFailures,
      "scenarios the fixture passes alone but Airlock fails (fix Airlock, or classify them in test/conformance/expected-failures.json)",
    ).toEqual([]);
    expect(judgement.staleEntries, "stale baseline entries (remove them)").toEqual([]);
  }, 120_000);
});
