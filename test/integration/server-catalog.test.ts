import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverStream } from "../../src/app/event-recorder.js";
import type { DomainEvent } from "../../src/domain/events.js";
import { createApiKey } from "../support/api-keys.js";
import {
  ARITHMETIC,
  fleetYaml,
  startStoredGateway,
  startTestGateway,
  storedMathConfig,
  type TestGateway,
} from "../support/gateway.js";
import { expectUnknownField } from "../support/validation-errors.js";

type Method = "GET" | "POST" | "DELETE";

/** A JSON answer, read loosely. */
// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field
type Body = any;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const rest =
  (gw: () => TestGateway, headers: Record<string, string> = {}) =>
  async (method: Method, url: string, payload?: object): Promise<{ status: number; body: Body }> => {
    const res = await gw().app.inject({ method, url, headers, ...(payload && { payload }) });
    return { status: res.statusCode, body: res.body === "" ? undefined : res.json() };
  };

const arithmetic = {
  name: "Arithmetic Tools",
  description: "Adds and subtracts numbers",
  mode: "subprocess",
  command: ["node", ARITHMETIC],
  tags: ["math", "local", "math"],
};

/** The 422 of one field and its rule (the first issue listed). */
const invalid = (field: string, rule: string | RegExp) => ({
  error: {
    code: "ValidationError",
    message: expect.stringContaining(`Invalid field '${field}'`),
    details: {
      issues: expect.arrayContaining([
        { field, rule: typeof rule === "string" ? rule : expect.stringMatching(rule) },
      ]),
    },
  },
});

describe("the server catalog with authentication off", () => {
  let gw: TestGateway;
  const call = rest(() => gw);
  const events: DomainEvent[] = [];

  beforeAll(async () => {
    // Many requests of one command type in a row: more than the default burst of the rate limit.
    gw = await startTestGateway(fleetYaml("rate_limit: {rps: 1000, burst: 1000}\n"));
    gw.gateway.services.bus.subscribe((event) => {
      if (event.type.startsWith("CatalogEntry") || event.type === "McpServerRegistered") events.push(event);
    });
  });
  afterAll(async () => {
    await gw?.close();
  });

  it("is a collection: the bare path answers 307 to the slashed one, query and method kept", async () => {
    const list = await gw.app.inject({ method: "GET", url: "/api/catalog?search=x&tags=a" });
    expect([list.statusCode, list.headers.location]).toEqual([307, "/api/catalog/?search=x&tags=a"]);
    const create = await gw.app.inject({ method: "POST", url: "/api/catalog", payload: arithmetic });
    expect([create.statusCode, create.headers.location]).toEqual([307, "/api/catalog/"]);
  });

  it("creates an entry (201, an id made by the gateway) and reads it back", async () => {
    const created = await call("POST", "/api/catalog/", arithmetic);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      entry_id: expect.stringMatching(UUID),
      name: "Arithmetic Tools",
      description: "Adds and subtracts numbers",
      mode: "subprocess",
      command: ["node", ARITHMETIC],
      image: null,
      endpoint: null,
      tags: ["math", "local"],
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      created_by: "anonymous",
    });
    const read = await call("GET", `/api/catalog/${created.body.entry_id}`);
    expect([read.status, read.body]).toEqual([200, created.body]);
    expect(events.at(-1)).toMatchObject({
      type: "CatalogEntryCreated",
      entry_id: created.body.entry_id,
      name: "Arithmetic Tools",
      created_by: "anonymous",
    });
  });

  it("answers an unknown entry id with 404 CatalogEntryNotFoundError on every route", async () => {
    const notFound = {
      error: { code: "CatalogEntryNotFoundError", message: "Catalog entry not found: ghost", details: null },
    };
    for (const [method, url] of [
      ["GET", "/api/catalog/ghost"],
      ["DELETE", "/api/catalog/ghost"],
      ["POST", "/api/catalog/ghost/deploy"],
    ] as const) {
      const res = await call(method, url);
      expect([method, url, res.status, res.body]).toEqual([method, url, 404, notFound]);
    }
  });

  it("refuses a second entry of a taken name with 409 and keeps the first", async () => {
    const again = await call("POST", "/api/catalog/", { ...arithmetic, description: "another" });
    expect([again.status, again.body]).toEqual([
      409,
      {
        error: {
          code: "CatalogEntryAlreadyExistsError",
          message: "Catalog entry already exists: Arithmetic Tools",
          details: { name: "Arithmetic Tools" },
        },
      },
    ]);
    const listed = await call("GET", "/api/catalog/?search=arithmetic");
    expect(listed.body.entries.map((e: Body) => e.description)).toEqual(["Adds and subtracts numbers"]);
  });

  describe("bad input changes nothing", () => {
    const total = async () => (await call("GET", "/api/catalog/")).body.total;

    it("answers missing name or description with 400 missing_fields, as every create route does", async () => {
      const before = await total();
      for (const body of [{}, { name: "x" }, { name: "", description: null }]) {
        const res = await call("POST", "/api/catalog/", body);
        expect(res.status).toBe(400);
        expect(res.body.error).toBe("missing_fields");
        expect(res.body.detail).toMatch(/^required field\(s\) absent: /);
      }
      const both = await call("POST", "/api/catalog/", {});
      expect(both.body.detail).toBe("required field(s) absent: name, description");
      expect(await total()).toBe(before);
    });

    it.each([
      ["name", { name: 5 }, /string/],
      ["name", { name: "   " }, "must not be blank"],
      ["name", { name: " padded" }, "must not start or end with whitespace"],
      ["name", { name: "line\nbreak" }, "must not hold control characters"],
      ["name", { name: "n".repeat(129) }, "must be at most 128 characters"],
      ["description", { description: "  \t" }, "must not be blank"],
      ["description", { description: ["text"] }, /string/],
      ["mode", { mode: "group" }, /subprocess/],
      ["command", { command: "node server.mjs" }, /array/],
      ["command", { command: [] }, /1/],
      ["command.1", { command: ["node", ""] }, /1/],
      ["image", { image: "" }, /1/],
      ["endpoint", { endpoint: 42 }, /string/],
      ["tags", { tags: "math" }, /array/],
      ["tags.0", { tags: ["a,b"] }, /without commas/],
      ["tags.1", { tags: ["ok", " padded"] }, /not starting or ending with whitespace/],
      ["tags", { tags: Array.from({ length: 33 }, (_, i) => `t${i}`) }, "must hold at most 32 tags"],
      ["command", { mode: "subprocess" }, "is required when mode is subprocess"],
      ["image", { mode: "docker", command: ["x"] }, "is required when mode is docker"],
      ["endpoint", { mode: "remote", endpoint: null }, "is required when mode is remote"],
    ])("refuses a bad %s with 422 naming it and its rule (%j)", async (field, fields, rule) => {
      const before = await total();
      const res = await call("POST", "/api/catalog/", { name: "fresh", description: "d", ...fields });
      expect([res.status, res.body]).toEqual([422, invalid(field, rule)]);
      expect(await total()).toBe(before);
    });

    it("refuses a field the route does not take with 422 naming it", async () => {
      expectUnknownField(
        await gw.app.inject({
          method: "POST",
          url: "/api/catalog/",
          payload: { name: "fresh", description: "d", env: { A: "1" } },
        }),
        "env",
      );
    });

    it.each([
      ["loopback", "http://127.0.0.1:8080/mcp"],
      ["link-local metadata", "http://169.254.169.254/latest"],
      ["not a URL", "not a url"],
      ["not http", "ftp://93.184.216.34/mcp"],
    ])("refuses a %s endpoint as registration does: 400 ssrf_blocked", async (_kind, endpoint) => {
      const before = await total();
      const res = await call("POST", "/api/catalog/", {
        name: "far",
        description: "d",
        mode: "remote",
        endpoint,
      });
      expect([res.status, res.body.error]).toEqual([400, "ssrf_blocked"]);
      expect(await total()).toBe(before);
    });

    it("accepts an endpoint at a public address, null for the fields not set", async () => {
      const res = await call("POST", "/api/catalog/", {
        name: "Remote Weather",
        description: "Forecasts",
        mode: "remote",
        endpoint: "https://93.184.216.34/mcp",
        command: null,
        image: null,
        tags: null,
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        mode: "remote",
        endpoint: "https://93.184.216.34/mcp",
        command: null,
        tags: [],
      });
    });
  });

  describe("listing", () => {
    beforeAll(async () => {
      for (const [name, description, tags] of [
        ["GitHub", "Issues and pull requests", ["vcs", "remote"]],
        ["GitLab", "Merge requests, issues", ["vcs"]],
        ["Filesystem", "Reads files; no GitHub needed", ["local", "files"]],
        ["Notes", "Plain text notes", ["local", "files", "vcs"]],
      ] as const) {
        const res = await call("POST", "/api/catalog/", { name, description, tags });
        expect(res.status).toBe(201);
      }
    });

    const names = async (query: string) => {
      const res = await call("GET", `/api/catalog/${query}`);
      expect(res.status).toBe(200);
      return res.body.entries.map((e: Body) => e.name);
    };

    it("lists every entry by name, with the page it is", async () => {
      const res = await call("GET", "/api/catalog/");
      expect(res.body).toMatchObject({ total: 6, limit: 100, offset: 0 });
      expect(res.body.entries.map((e: Body) => e.name)).toEqual([
        "Arithmetic Tools",
        "Filesystem",
        "GitHub",
        "GitLab",
        "Notes",
        "Remote Weather",
      ]);
    });

    it("searches name and description, case-insensitively", async () => {
      expect(await names("?search=github")).toEqual(["Filesystem", "GitHub"]);
      expect(await names("?search=ISSUES")).toEqual(["GitHub", "GitLab"]);
      expect(await names("?search=git")).toEqual(["Filesystem", "GitHub", "GitLab"]);
      expect(await names("?search=%25")).toEqual([]);
      expect(await names("?search=")).toHaveLength(6);
    });

    it("keeps entries carrying every tag listed (comma-separated, spaces trimmed)", async () => {
      expect(await names("?tags=vcs")).toEqual(["GitHub", "GitLab", "Notes"]);
      expect(await names("?tags=vcs,local")).toEqual(["Notes"]);
      expect(await names("?tags=%20files%20,%20local,")).toEqual(["Filesystem", "Notes"]);
      expect(await names("?tags=vcs,nothing")).toEqual([]);
      expect(await names("?tags=VCS")).toEqual([]);
      expect(await names("?tags=vcs&search=issues")).toEqual(["GitHub", "GitLab"]);
    });

    it("pages with limit and offset, total counting every match", async () => {
      const page = async (query: string) => (await call("GET", `/api/catalog/${query}`)).body;
      expect(await page("?tags=vcs&limit=2")).toMatchObject({
        entries: [{ name: "GitHub" }, { name: "GitLab" }],
        total: 3,
        limit: 2,
        offset: 0,
      });
      expect(await page("?tags=vcs&limit=2&offset=2")).toMatchObject({
        entries: [{ name: "Notes" }],
        total: 3,
        offset: 2,
      });
      // Out-of-range integers are clamped, as tool history's are.
      expect(await page("?limit=0&offset=-4")).toMatchObject({ limit: 1, offset: 0, total: 6 });
      expect((await page("?limit=0")).entries).toHaveLength(1);
      expect(await page("?limit=100000")).toMatchObject({ limit: 500 });
      expect(await page("?offset=99")).toMatchObject({ entries: [], total: 6 });
    });

    it("answers a query integer that is not one with 400 invalid_query, and too many tags with 422", async () => {
      const bad = await call("GET", "/api/catalog/?limit=ten");
      expect([bad.status, bad.body]).toEqual([
        400,
        { error: "invalid_query", detail: "limit must be an integer" },
      ]);
      const tags = Array.from({ length: 33 }, (_, i) => `t${i}`).join(",");
      const many = await call("GET", `/api/catalog/?tags=${tags}`);
      expect([many.status, many.body]).toEqual([422, invalid("tags", "must name at most 32 tags")]);
    });
  });

  describe("deploying an entry", () => {
    let arithmeticId: string;
    beforeAll(async () => {
      arithmeticId = (await call("GET", "/api/catalog/?search=arithmetic")).body.entries[0].entry_id;
    });

    it("registers a server through registration (201), under an id made from the entry's name", async () => {
      events.length = 0;
      const res = await call("POST", `/api/catalog/${arithmeticId}/deploy`);
      expect([res.status, res.body]).toEqual([
        201,
        { mcp_server_id: "arithmetic-tools", created: true, entry_id: arithmeticId, started: null },
      ]);
      const servers = (await call("GET", "/api/mcp_servers/")).body.mcp_servers;
      expect(servers.find((s: Body) => s.mcp_server_id === "arithmetic-tools")).toMatchObject({
        state: "cold",
        mode: "subprocess",
        description: "Adds and subtracts numbers",
      });
      // Registration's own event, then the one naming the entry; both in the server's stream.
      expect(events.map((e) => e.type)).toEqual(["McpServerRegistered", "CatalogEntryDeployed"]);
      expect(events[0]).toMatchObject({
        mcp_server_id: "arithmetic-tools",
        source: "api",
        mode: "subprocess",
      });
      expect(events[1]).toMatchObject({
        entry_id: arithmeticId,
        name: "Arithmetic Tools",
        mcp_server_id: "arithmetic-tools",
        deployed_by: "anonymous",
      });
      const { eventStore, repositories } = gw.gateway.services;
      await eventStore.flush();
      const stream = await eventStore.readStream(serverStream("arithmetic-tools"), { limit: 10 });
      expect(stream.map((s) => s.event.type)).toEqual(["McpServerRegistered", "CatalogEntryDeployed"]);
      // Registration's store effect: the server is kept in the durable configuration repository.
      expect(await repositories.serverConfigs.get("arithmetic-tools")).toMatchObject({
        spec: { command: ["node", ARITHMETIC], source: "api" },
      });
    });

    it("answers an id that exists as registration answers it (422), registering nothing", async () => {
      const res = await call("POST", `/api/catalog/${arithmeticId}/deploy`);
      expect([res.status, res.body]).toEqual([
        422,
        {
          error: {
            code: "ValidationError",
            message: "McpServer already exists: arithmetic-tools",
            details: { field: "mcp_server_id" },
          },
        },
      ]);
      const declared = await call("POST", `/api/catalog/${arithmeticId}/deploy`, { mcp_server_id: "math" });
      expect(declared.body.error.message).toBe("McpServer already exists: math");
    });

    it("takes the server id and start from the body, and starts the server it registered", async () => {
      const res = await call("POST", `/api/catalog/${arithmeticId}/deploy`, {
        mcp_server_id: "calc",
        start: true,
        idle_ttl_s: 120,
        env: { CALC_MODE: "fast" },
      });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        mcp_server_id: "calc",
        created: true,
        entry_id: arithmeticId,
        started: { mcp_server: "calc", state: "ready", tools: expect.arrayContaining(["add"]) },
      });
      const detail = await call("GET", "/api/mcp_servers/calc");
      expect(detail.body).toMatchObject({ state: "ready", alive: true });
      const stored = await gw.gateway.services.repositories.serverConfigs.get("calc");
      expect(stored?.spec).toMatchObject({ idle_ttl_s: 120, env: { CALC_MODE: "fast" } });
      expect((await call("POST", "/api/mcp_servers/calc/stop")).status).toBe(200);
    });

    it("refuses the registration's bad fields as registration does, naming them", async () => {
      const badId = await call("POST", `/api/catalog/${arithmeticId}/deploy`, { mcp_server_id: "bad id!" });
      expect([badId.status, badId.body.error.details.issues[0].field]).toEqual([422, "mcp_server_id"]);
      const badTtl = await call("POST", `/api/catalog/${arithmeticId}/deploy`, {
        mcp_server_id: "calc2",
        idle_ttl_s: "60",
      });
      expect([badTtl.status, badTtl.body.error.details.issues[0].field]).toEqual([422, "idle_ttl_s"]);
      const badStart = await call("POST", `/api/catalog/${arithmeticId}/deploy`, { start: "yes" });
      expect([badStart.status, badStart.body.error.details.issues[0].field]).toEqual([422, "start"]);
      expectUnknownField(
        await gw.app.inject({
          method: "POST",
          url: `/api/catalog/${arithmeticId}/deploy`,
          payload: { entry_id: "other" },
        }),
        "entry_id",
      );
      expectUnknownField(
        await gw.app.inject({
          method: "POST",
          url: `/api/catalog/${arithmeticId}/deploy`,
          payload: { mode: "docker" },
        }),
        "mode",
      );
      expect(gw.gateway.services.fleet.has("calc2")).toBe(false);
    });

    it("answers an entry that names no mode as registration answers a body without one", async () => {
      const notes = (await call("GET", "/api/catalog/?search=notes")).body.entries[0];
      const res = await call("POST", `/api/catalog/${notes.entry_id}/deploy`);
      expect([res.status, res.body]).toEqual([
        400,
        { error: "missing_fields", detail: "required field(s) absent: mode" },
      ]);
      expect(gw.gateway.services.fleet.has("notes")).toBe(false);
    });
  });

  describe("deleting", () => {
    it("answers 200 {entry_id, deleted}, then 404; servers deployed from the entry stay", async () => {
      const entry = (await call("GET", "/api/catalog/?search=arithmetic")).body.entries[0];
      expectUnknownField(
        await gw.app.inject({
          method: "DELETE",
          url: `/api/catalog/${entry.entry_id}`,
          payload: { force: true },
        }),
        "force",
      );
      events.length = 0;
      const res = await call("DELETE", `/api/catalog/${entry.entry_id}`);
      expect([res.status, res.body]).toEqual([200, { entry_id: entry.entry_id, deleted: true }]);
      expect(events).toEqual([
        expect.objectContaining({
          type: "CatalogEntryDeleted",
          entry_id: entry.entry_id,
          name: "Arithmetic Tools",
          deleted_by: "anonymous",
        }),
      ]);
      expect((await call("GET", `/api/catalog/${entry.entry_id}`)).status).toBe(404);
      expect((await call("DELETE", `/api/catalog/${entry.entry_id}`)).status).toBe(404);
      expect((await call("GET", "/api/mcp_servers/arithmetic-tools")).status).toBe(200);
      // Its name is free again.
      expect((await call("POST", "/api/catalog/", arithmetic)).status).toBe(201);
    });
  });
});

describe("the server catalog with authentication on", () => {
  let gw: TestGateway;
  const keys: Record<string, string> = {};
  const as = (who: string) => rest(() => gw, { "x-api-key": keys[who] as string });
  let entryId: string;

  beforeAll(async () => {
    gw = await startTestGateway(`
auth:
  enabled: true
  rate_limit: {max_attempts: 100000}
  role_assignments:
    - {principal: root, role: admin}
    - {principal: reader, role: viewer}
    - {principal: dev, role: developer}
${fleetYaml()}`);
    for (const who of ["root", "reader", "dev"]) keys[who] = await createApiKey(gw, who);
    const created = await as("root")("POST", "/api/catalog/", { ...arithmetic, name: "calc" });
    expect(created.body.created_by).toBe("root");
    entryId = created.body.entry_id;
  });
  afterAll(async () => {
    await gw?.close();
  });

  /** What registering needs, as the route's refusal names it (that of `POST /mcp_servers` too). */
  const REGISTERING = "mcp_servers:write and mcp_servers:lifecycle and policy:write";
  const denied = (permission: string) => ({
    error: {
      code: "AccessDeniedError",
      message: `Access denied: ${permission} permission required`,
      details: null,
    },
  });

  it("asks for credentials", async () => {
    const res = await rest(() => gw)("GET", "/api/catalog/");
    expect(res.status).toBe(401);
  });

  it("lets a read-only role read the catalog", async () => {
    const listed = await as("reader")("GET", "/api/catalog/");
    expect([listed.status, listed.body.total]).toEqual([200, 1]);
    expect((await as("reader")("GET", `/api/catalog/${entryId}`)).status).toBe(200);
  });

  it("refuses a read-only role creating, deleting or deploying, and changes nothing", async () => {
    const reader = as("reader");
    const create = await reader("POST", "/api/catalog/", { name: "x", description: "y" });
    expect([create.status, create.body]).toEqual([403, denied("mcp_servers:write")]);
    const remove = await reader("DELETE", `/api/catalog/${entryId}`);
    expect([remove.status, remove.body]).toEqual([403, denied("mcp_servers:write")]);
    const deploy = await reader("POST", `/api/catalog/${entryId}/deploy`, { mcp_server_id: "by-reader" });
    expect([deploy.status, deploy.body]).toEqual([403, denied(REGISTERING)]);
    expect((await reader("GET", "/api/catalog/")).body.total).toBe(1);
    expect(gw.gateway.services.fleet.has("by-reader")).toBe(false);
  });

  it("lets a role that manages server configuration create and delete entries, but not deploy them", async () => {
    const dev = as("dev");
    const created = await dev("POST", "/api/catalog/", { name: "scratch", description: "d" });
    expect([created.status, created.body.created_by]).toEqual([201, "dev"]);
    const deploy = await dev("POST", `/api/catalog/${entryId}/deploy`, { mcp_server_id: "by-dev" });
    expect([deploy.status, deploy.body]).toEqual([403, denied(REGISTERING)]);
    expect(gw.gateway.services.fleet.has("by-dev")).toBe(false);
    expect((await dev("DELETE", `/api/catalog/${created.body.entry_id}`)).status).toBe(200);
  });

  it("lets a principal who may register servers deploy, recorded under that principal", async () => {
    const deploy = await as("root")("POST", `/api/catalog/${entryId}/deploy`, { mcp_server_id: "by-root" });
    expect(deploy.status).toBe(201);
    await gw.gateway.services.eventStore.flush();
    const stream = await gw.gateway.services.eventStore.readStream(serverStream("by-root"), {
      types: ["CatalogEntryDeployed"],
    });
    expect(stream.map((s) => s.event)).toEqual([
      expect.objectContaining({ deployed_by: "root", entry_id: entryId }),
    ]);
  });
});

describe("the server catalog and the command-bus rate limit", () => {
  let gw: TestGateway;
  const call = rest(() => gw);
  beforeAll(async () => {
    gw = await startTestGateway(fleetYaml("rate_limit: {rps: 0.001, burst: 2}\n"));
  });
  afterAll(async () => {
    await gw?.close();
  });

  it("charges a deployment to the registration's budget, shared with POST /mcp_servers", async () => {
    const entry = (await call("POST", "/api/catalog/", arithmetic)).body;
    const direct = await call("POST", "/api/mcp_servers/", {
      mcp_server_id: "direct",
      mode: "subprocess",
      command: ["node", ARITHMETIC],
    });
    expect(direct.status).toBe(201);
    expect((await call("POST", `/api/catalog/${entry.entry_id}/deploy`)).status).toBe(201);
    const refused = await call("POST", `/api/catalog/${entry.entry_id}/deploy`, { mcp_server_id: "third" });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({
      code: "RateLimitExceeded",
      details: { budget: "register-server", scope: "all_callers" },
    });
    expect(gw.gateway.services.fleet.has("third")).toBe(false);
  });
});

describe("the server catalog on durable storage", () => {
  const { yaml, remove } = storedMathConfig("airlock-catalog-");
  afterAll(remove);

  /** Runs `work` against a fresh gateway process on the same SQLite file, then shuts it down. */
  async function withGateway(work: (call: ReturnType<typeof rest>) => Promise<void>): Promise<void> {
    const gw = await startStoredGateway(yaml);
    try {
      await work(rest(() => gw));
    } finally {
      await gw.close();
    }
  }

  it("keeps entries across restarts, and forgets deleted ones", async () => {
    let kept: Body;
    let dropped: Body;
    await withGateway(async (call) => {
      kept = (await call("POST", "/api/catalog/", arithmetic)).body;
      dropped = (
        await call("POST", "/api/catalog/", { name: "Scratch", description: "temporary", tags: ["tmp"] })
      ).body;
      expect((await call("POST", `/api/catalog/${kept.entry_id}/deploy`)).status).toBe(201);
    });
    await withGateway(async (call) => {
      expect((await call("GET", `/api/catalog/${kept.entry_id}`)).body).toEqual(kept);
      const listed = await call("GET", "/api/catalog/?tags=math,local");
      expect(listed.body).toMatchObject({ entries: [kept], total: 1 });
      expect((await call("GET", "/api/catalog/")).body.total).toBe(2);
      // The server deployed before the restart is a REST registration, kept as such.
      expect((await call("GET", "/api/mcp_servers/arithmetic-tools")).status).toBe(200);
      expect((await call("DELETE", `/api/catalog/${dropped.entry_id}`)).status).toBe(200);
      // A taken name stays taken across restarts.
      expect((await call("POST", "/api/catalog/", arithmetic)).status).toBe(409);
    });
    await withGateway(async (call) => {
      const listed = await call("GET", "/api/catalog/");
      expect(listed.body.entries.map((e: Body) => e.name)).toEqual(["Arithmetic Tools"]);
      expect((await call("GET", `/api/catalog/${dropped.entry_id}`)).status).toBe(404);
      const started = await call("POST", `/api/catalog/${kept.entry_id}/deploy`, {
        mcp_server_id: "again",
        start: true,
      });
      expect(started.body.started).toMatchObject({ state: "ready" });
    });
  });
});
