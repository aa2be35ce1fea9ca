import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { chartValuesSchema, configJsonSchema, type JsonSchema } from "../../../src/config/json-schema.js";
import { enumValuesAt, keysAt, nearest, suggestionFor } from "../../../src/config/suggest.js";

const REGENERATE = "stale: run `npm run config:schema` and commit the result";

// biome-ignore lint/suspicious/noExplicitAny: reading deep into a generated schema
type Any = any;

const readJson = (path: string): JsonSchema => JSON.parse(readFileSync(resolve(path), "utf8"));

describe("the published JSON Schema of the configuration", () => {
  it("docs/config.schema.json is the schema generated from the zod schema", () => {
    expect(readJson("docs/config.schema.json"), `docs/config.schema.json is ${REGENERATE}`).toEqual(
      configJsonSchema(),
    );
  });

  it("the chart's values.schema.json embeds it under config", () => {
    const values = readJson("helm/airlock/values.schema.json");
    expect(values, `helm/airlock/values.schema.json is ${REGENERATE}`).toEqual(chartValuesSchema(values));
  });
});

describe("configJsonSchema", () => {
  const schema: Any = configJsonSchema();

  it("is draft-07 and refuses unknown top-level keys but allows x- extension keys", () => {
    expect(schema.$schema).toBe("http://json-schema.org/draft-07/schema#");
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.patternProperties)).toEqual(["^x-"]);
  });

  it("carries defaults, enums and integer bounds", () => {
    expect(schema.properties.tool_access.properties.mode.enum).toEqual(["egress", "front_door"]);
    expect(schema.properties.logging.properties.json_format).toMatchObject({
      type: "boolean",
      default: false,
    });
    const subprocess = schema.properties.mcp_servers.additionalProperties.allOf[0].then;
    expect(subprocess.properties.idle_ttl_s).toEqual({
      default: 300,
      type: "integer",
      minimum: 1,
      maximum: 86400,
    });
    expect(subprocess.required).toEqual(["command"]);
  });

  it("refuses unknown keys where config check does and accepts them deeper, where it only warns", () => {
    expect(schema.properties.logging.additionalProperties).toBe(false);
    expect(schema.properties.mcp_servers.additionalProperties.allOf[0].then.additionalProperties).toBe(false);
    // auth.oidc is two levels down: an unknown key there is a warning, in strict mode too.
    expect(schema.properties.auth.properties.oidc.additionalProperties).toBeUndefined();
    // A tool policy block refuses unknown keys at any depth.
    const remote = schema.properties.mcp_servers.additionalProperties.allOf[2].then;
    expect(remote.properties.access.additionalProperties).toBe(false);
  });

  it("accepts deprecated spellings that still load, marked deprecated", () => {
    const channel = schema.properties.approvals.properties.channel;
    expect(channel.anyOf).toContainEqual(expect.objectContaining({ const: "dashboard", deprecated: true }));
    const docker = schema.properties.mcp_servers.additionalProperties.allOf[1].then;
    expect(docker.properties.network_mode.deprecated).toBe(true);
  });

  it("lets every constrained scalar be an environment reference in the chart's variant only", () => {
    const chart: Any = configJsonSchema({ references: true });
    const level = chart.properties.logging.properties.level;
    expect(level.anyOf[1]).toMatchObject({ type: "string", pattern: "\\$\\{[A-Z_][A-Z0-9_]*\\}" });
    expect(schema.properties.logging.properties.level.anyOf[1].pattern).not.toContain("\\$");
  });
});

describe("did you mean", () => {
  const schema = configJsonSchema();

  it("suggests the nearest key at any depth, within a bound", () => {
    expect(suggestionFor(schema, ["logging", "levl"], { unknownKey: true, value: 1 })).toBe("level");
    expect(suggestionFor(schema, ["mcp_servers", "a", "comand"], { unknownKey: true, value: [] })).toBe(
      "command",
    );
    expect(suggestionFor(schema, ["auth", "oidc", "isuer"], { unknownKey: true, value: "x" })).toBe("issuer");
    expect(
      suggestionFor(schema, ["logging", "completely_else"], { unknownKey: true, value: 1 }),
    ).toBeUndefined();
  });

  it("suggests the nearest enum value, by prefix or edits", () => {
    expect(suggestionFor(schema, ["logging", "level"], { unknownKey: false, value: "WARN" })).toBe("WARNING");
    expect(suggestionFor(schema, ["tool_access", "mode"], { unknownKey: false, value: "egres" })).toBe(
      "egress",
    );
    expect(suggestionFor(schema, ["mcp_servers", "x", "mode"], { unknownKey: false, value: "remot" })).toBe(
      "remote",
    );
    expect(suggestionFor(schema, ["tool_access", "mode"], { unknownKey: false, value: 3 })).toBeUndefined();
  });

  it("reads keys and enum values through if/then branches", () => {
    expect(keysAt(schema, ["mcp_servers", "any"])).toContain("endpoint");
    expect(enumValuesAt(schema, ["mcp_servers", "any", "mode"])).toContain("group");
  });

  it("bounds the distance: one edit for short words, up to three for long ones", () => {
    expect(nearest("pot", ["port"])).toBe("port");
    expect(nearest("host", ["port"])).toBeUndefined();
    expect(nearest("graceful_shutdown_tmo", ["graceful_shutdown_timeout_s"])).toBeUndefined();
    expect(nearest("graceful_shutdwn_timeout_s", ["graceful_shutdown_timeout_s"])).toBe(
      "graceful_shutdown_timeout_s",
    );
  });
});
