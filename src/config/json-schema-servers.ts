/**
 * The JSON Schema of `mcp_servers`, which the loader parses by hand (a group must know the other
 * ids): the entry's `mode` selects the server variant (absent: subprocess, `container`: docker), a
 * key documented for another mode is accepted (the loader ignores it with a warning), and a group
 * member is either a reference to a declared server or a full inline server.
 */
import * as z from "zod";
import { SERVER_ID_CHARS } from "../domain/server/server-id.js";
import { groupEntrySchema, memberWeights } from "./schema/groups.js";
import type { JsonSchema, RenderJsonSchema } from "./schema/json-hints.js";
import { nonBlank } from "./schema/primitives.js";
import {
  dockerServerSchema,
  FLAGGED_SERVER_KEYS,
  remoteServerSchema,
  SERVER_ID_PATTERN,
  SERVER_MODES,
  subprocessServerSchema,
} from "./schema/servers.js";

const VARIANTS = {
  subprocess: subprocessServerSchema,
  docker: dockerServerSchema,
  remote: remoteServerSchema,
} as const;

type Mode = keyof typeof VARIANTS;

function properties(schema: JsonSchema): Record<string, JsonSchema> {
  return (schema.properties ?? {}) as Record<string, JsonSchema>;
}

/** The variants, each accepting the keys of the other modes as ignored ones. */
function variants(render: RenderJsonSchema): Record<Mode, JsonSchema> {
  const rendered = Object.fromEntries(
    Object.entries(VARIANTS).map(([mode, schema]) => [mode, render(schema)]),
  ) as Record<Mode, JsonSchema>;
  const modes = Object.keys(rendered) as Mode[];
  for (const mode of modes) {
    const own = properties(rendered[mode]);
    for (const other of modes) {
      for (const key of Object.keys(properties(rendered[other]))) {
        if (key in own) continue;
        const owners = modes.filter((m) => key in properties(rendered[m])).join(" or ");
        own[key] = { description: `applies only to mode ${owners}; ignored for mode ${mode}` };
      }
    }
  }
  // Older or docker-only spellings that load with an unknown-key warning (refused by `config check`).
  for (const mode of modes) {
    const own = properties(rendered[mode]);
    for (const key of FLAGGED_SERVER_KEYS) {
      own[key] = { ...own[key], deprecated: true };
    }
  }
  // `mode` is optional for a subprocess server, and `container` is read as docker.
  const subprocess = rendered.subprocess;
  subprocess.required = ((subprocess.required ?? []) as string[]).filter((key) => key !== "mode");
  properties(rendered.docker).mode = { enum: ["docker", "container"] };
  return rendered;
}

/** JSON Schema's `if`/`then`: `then` applies to an entry that matches `condition`. */
function conditional(condition: JsonSchema, then: JsonSchema): JsonSchema {
  return { if: condition, then };
}

function when(modes: readonly string[], then: JsonSchema): JsonSchema {
  return conditional({ properties: { mode: { enum: [...modes] } }, required: ["mode"] }, then);
}

/** One entry: a server of the mode `mode` names, or a group. */
function entry(serverVariants: Record<Mode, JsonSchema>, group: JsonSchema): JsonSchema {
  return {
    type: "object",
    properties: {
      mode: {
        enum: [...SERVER_MODES],
        default: "subprocess",
        description: "how the server runs; container is read as docker",
      },
    },
    allOf: [
      conditional(
        { anyOf: [{ not: { required: ["mode"] } }, { properties: { mode: { const: "subprocess" } } }] },
        serverVariants.subprocess,
      ),
      when(["docker", "container"], serverVariants.docker),
      when(["remote"], serverVariants.remote),
      when(["group"], group),
    ],
  };
}

/** A group member: `id`, `weight`, `priority`, and the keys of an inline server. */
function member(render: RenderJsonSchema, serverVariants: Record<Mode, JsonSchema>): JsonSchema {
  const serverKeys: Record<string, JsonSchema> = {};
  for (const variant of Object.values(serverVariants)) {
    for (const [key, schema] of Object.entries(properties(variant))) {
      if (!(key in serverKeys) || serverKeys[key]?.description?.toString().startsWith("applies only"))
        serverKeys[key] = schema;
    }
  }
  const { id: _id, ...weights } = properties(render(z.strictObject({ id: nonBlank(), ...memberWeights })));
  return {
    type: "object",
    description:
      "a server declared in mcp_servers (reference: only id, weight, priority and tools are read) or a full inline server",
    properties: {
      ...serverKeys,
      mode: { enum: SERVER_MODES.filter((mode) => mode !== "group"), default: "subprocess" },
      id: { type: "string", pattern: SERVER_ID_PATTERN.source, description: SERVER_ID_CHARS },
      ...weights,
    },
    required: ["id"],
    additionalProperties: false,
  };
}

/** JSON Schema of the whole `mcp_servers` mapping. */
export function mcpServersJsonSchema(render: RenderJsonSchema): JsonSchema {
  const serverVariants = variants(render);
  const group = render(groupEntrySchema(new Map()));
  const groupProperties = properties(group);
  groupProperties.members = {
    type: "array",
    default: [],
    items: member(render, serverVariants),
  };
  return {
    type: ["object", "null"],
    default: {},
    description: "the servers and groups, by id",
    propertyNames: { pattern: SERVER_ID_PATTERN.source },
    additionalProperties: entry(serverVariants, group),
  };
}
