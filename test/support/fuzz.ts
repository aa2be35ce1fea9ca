import fc from "fast-check";
import { expect } from "vitest";
import { createApiKey } from "./api-keys.js";
import { type FileGateway, fleetYaml, startFileGateway } from "./gateway.js";

/**
 * Shared pieces of the fuzz suites (test/integration/fuzz-*.test.ts): what hostile input looks
 * like, and what no answer may contain.
 */

/**
 * Text that only an internal failure puts in an answer: a stack frame, a source path, the
 * engine's own error names and messages. A clear refusal never reads like this.
 */
const STACK_TEXT = [
  /\bat (?:async )?[\w$.<>[\]]+ \(/, // "at fn (" of a stack frame
  /\bat (?:file|node):/,
  /node_modules/,
  /\/src\/[\w/-]+\.[jt]s/,
  /\.[jt]s:\d+:\d+/,
  /Maximum call stack/,
  /\b(?:TypeError|ReferenceError|RangeError|SyntaxError):/,
  /Cannot read propert/,
  /is not a function/,
  /undefined is not/,
  /\[object Object\]/,
];

/** Fails the test, naming what leaked, when `text` carries stack or engine text. */
export function expectNoStackText(text: string, where: string): void {
  for (const pattern of STACK_TEXT) {
    expect(
      pattern.test(text),
      `${where}: the answer carries internal text (${pattern}): ${text.slice(0, 400)}`,
    ).toBe(false);
  }
}

/** Nesting far beyond any configured depth limit, as raw JSON text (built without recursion). */
export const deepJsonText: fc.Arbitrary<string> = fc
  .tuple(fc.oneof(fc.integer({ min: 65, max: 300 }), fc.constantFrom(1000, 5000, 20_000)), fc.boolean())
  .map(([depth, objects]) =>
    objects ? `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}` : `${"[".repeat(depth)}1${"]".repeat(depth)}`,
  );

/** Strings a careless handler trips on: NUL, lone surrogates, huge numbers in text, paths, markup. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.constantFrom(
    "",
    " ",
    "\u0000",
    "\ud800",
    "../../etc/passwd",
    "%00",
    "<script>alert(1)</script>",
    "__proto__",
    "constructor",
    "1e309",
    "-0",
    "NaN",
    "null",
    "true",
    "*",
    "a".repeat(5000),
  ),
);

/** Any JSON value, including the awkward ones (`__proto__` keys, deep-ish nesting, big numbers). */
export const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(null, true, 0, -1, 1e308, 2 ** 53 + 1, [], {}, "", { __proto__: { polluted: true } }),
  fc.dictionary(hostileString, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
);

/** Per-field generators of values a route expects (valid or near-valid). */
export type FieldShapes = Record<string, fc.Arbitrary<unknown>>;

/**
 * Bodies for a route that takes `fields`: valid subsets, the same keys with values of any type,
 * valid fields plus unknown ones, any JSON at all, text that is not JSON, and deep nesting. Each
 * comes as the raw text sent on the wire.
 */
export function bodyText(fields: FieldShapes): fc.Arbitrary<string> {
  const keys = Object.keys(fields);
  const asText = (value: unknown) => JSON.stringify(value) ?? "null";
  const valid = keys.length > 0 ? fc.record(fields, { requiredKeys: [] }) : fc.constant({});
  const anyTyped =
    keys.length > 0
      ? fc.record(Object.fromEntries(keys.map((key) => [key, anyJson])), { requiredKeys: [] })
      : fc.constant({});
  const extra = fc.dictionary(
    fc.oneof(
      fc.string({ minLength: 1, maxLength: 12 }),
      fc.constantFrom("tools", "command", "members", "created_by"),
    ),
    anyJson,
    { minKeys: 1, maxKeys: 2 },
  );
  return fc.oneof(
    { weight: 4, arbitrary: valid.map(asText) },
    { weight: 3, arbitrary: anyTyped.map(asText) },
    { weight: 3, arbitrary: fc.tuple(valid, extra).map(([ok, more]) => asText({ ...more, ...ok })) },
    { weight: 2, arbitrary: anyJson.map(asText) },
    { weight: 1, arbitrary: fc.string({ maxLength: 60 }) },
    { weight: 1, arbitrary: deepJsonText },
  );
}

/** Query values: numbers in and out of range, and text that is no number. */
export const queryValue: fc.Arbitrary<string> = fc.oneof(
  fc.integer({ min: -10, max: 100_000 }).map(String),
  fc.constantFrom(
    "",
    "abc",
    "1.5",
    "1e3",
    "-0",
    "0x10",
    "NaN",
    "Infinity",
    "true",
    "false",
    "99999999999999999999",
  ),
  fc.string({ maxLength: 12 }),
);

/** How many cases each property runs: enough to find shape bugs, few enough for the suite's budget. */
export const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 25);

/** The example fleet and a group `g1` of `math`. */
export const FLEET_WITH_GROUP = fleetYaml(`  g1:
    mode: group
    members: [{id: math}]
`);

/** A gateway under fuzzing, and what the fuzz suites read back from it as its admin. */
export interface FuzzTarget {
  gw: FileGateway;
  /** An API key of the principal `admin`, who holds the admin role. */
  adminKey: string;
  /** The status and body of `/api<url>`, asked as the admin. */
  read(method: "GET" | "POST", url: string): Promise<{ status: number; body: string }>;
  /** The ids of the servers in the fleet, sorted. */
  serverIds(): Promise<string[]>;
}

/**
 * A gateway started from a configuration file (so that export reads something back) of `yaml`,
 * with authentication on and an admin, so that every request runs past authorization, and with
 * limits no fuzz run reaches (login attempts, request rate).
 */
export async function startFuzzTarget(yaml: string): Promise<FuzzTarget> {
  const gw = await startFileGateway(`
auth:
  enabled: true
  rate_limit: {max_attempts: 100000}
  role_assignments:
    - {principal: admin, role: admin}
rate_limit: {rps: 1000000, burst: 1000000}
${yaml}`);
  const adminKey = await createApiKey(gw, "admin");
  const read = async (method: "GET" | "POST", url: string) => {
    const response = await gw.app.inject({ method, url: `/api${url}`, headers: { "x-api-key": adminKey } });
    return { status: response.statusCode, body: response.body };
  };
  return {
    gw,
    adminKey,
    read,
    async serverIds() {
      const servers = JSON.parse((await read("GET", "/mcp_servers/")).body) as {
        mcp_servers: { mcp_server_id: string }[];
      };
      return servers.mcp_servers.map((server) => server.mcp_server_id).sort();
    },
  };
}
