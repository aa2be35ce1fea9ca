/**
 * The registry's JSON documents as the `v0` servers API sends them (`ServerList`, `ServerResponse`,
 * `ServerDetail`, `Package`, `KeyValueInput`, `RemoteTransport` of its OpenAPI document), read
 * leniently: one entry, package or remote the reader cannot use is left out, not the whole answer.
 */
import { z } from "zod";
import type {
  RegistryArgument,
  RegistryInput,
  RegistryOfficialMeta,
  RegistryPackage,
  RegistryRemote,
  RegistryServer,
} from "../../app/ports/mcp-registry.js";

/** The `_meta` key under which the official registry puts what it says about an entry. */
export const OFFICIAL_META_KEY = "io.modelcontextprotocol.registry/official";

const keyValueInput = z.object({
  name: z.string().min(1),
  description: z.string().optional(),
  isRequired: z.boolean().default(false),
  isSecret: z.boolean().default(false),
  value: z.string().optional(),
  default: z.string().optional(),
});

const argument = z.object({
  type: z.enum(["positional", "named"]),
  name: z.string().optional(),
  value: z.string().optional(),
  default: z.string().optional(),
  valueHint: z.string().optional(),
  isRequired: z.boolean().default(false),
});

const packageDocument = z.object({
  registryType: z.string().min(1),
  identifier: z.string().min(1),
  version: z.string().min(1).optional(),
  // Required by the current schema; entries published before it existed ran over stdio.
  transport: z.object({ type: z.string().min(1) }).default({ type: "stdio" }),
  environmentVariables: z.array(z.unknown()).default([]),
  packageArguments: z.array(z.unknown()).default([]),
});

const remoteDocument = z.object({
  type: z.string().min(1),
  url: z.string().min(1),
  headers: z.array(z.unknown()).default([]),
});

const officialMeta = z.object({
  status: z.string().min(1),
  statusMessage: z.string().optional(),
  isLatest: z.boolean().optional(),
  publishedAt: z.string().optional(),
  updatedAt: z.string().optional(),
});

const serverResponse = z.object({
  server: z.object({
    name: z.string().min(1),
    description: z.string().default(""),
    version: z.string().default(""),
    title: z.string().optional(),
    packages: z.array(z.unknown()).default([]),
    remotes: z.array(z.unknown()).default([]),
  }),
  _meta: z.record(z.string(), z.unknown()).optional(),
});

const serverList = z.object({
  servers: z.array(z.unknown()),
  metadata: z.object({ nextCursor: z.string().nullish(), count: z.number().optional() }).partial().optional(),
});

/** Items of `list` that `schema` reads, converted; the others are left out. */
function readable<S extends z.ZodType, T>(
  list: readonly unknown[],
  schema: S,
  convert: (v: z.output<S>) => T,
) {
  const out: T[] = [];
  for (const item of list) {
    const parsed = schema.safeParse(item);
    if (parsed.success) out.push(convert(parsed.data));
  }
  return out;
}

function toInput(input: z.output<typeof keyValueInput>): RegistryInput {
  return {
    name: input.name,
    isRequired: input.isRequired,
    isSecret: input.isSecret,
    ...(input.description !== undefined && { description: input.description }),
    ...(input.value !== undefined && { value: input.value }),
    ...(input.default !== undefined && { default: input.default }),
  };
}

function toArgument(arg: z.output<typeof argument>): RegistryArgument {
  return {
    type: arg.type,
    isRequired: arg.isRequired,
    ...(arg.name !== undefined && { name: arg.name }),
    ...(arg.value !== undefined && { value: arg.value }),
    ...(arg.default !== undefined && { default: arg.default }),
    ...(arg.valueHint !== undefined && { valueHint: arg.valueHint }),
  };
}

function toPackage(pkg: z.output<typeof packageDocument>): RegistryPackage {
  return {
    registryType: pkg.registryType,
    identifier: pkg.identifier,
    ...(pkg.version !== undefined && { version: pkg.version }),
    transportType: pkg.transport.type,
    environmentVariables: readable(pkg.environmentVariables, keyValueInput, toInput),
    packageArguments: readable(pkg.packageArguments, argument, toArgument),
  };
}

function toRemote(remote: z.output<typeof remoteDocument>): RegistryRemote {
  return {
    type: remote.type,
    url: remote.url,
    headers: readable(remote.headers, keyValueInput, toInput),
  };
}

function toServer(entry: z.output<typeof serverResponse>): RegistryServer {
  const meta = officialMeta.safeParse(entry._meta?.[OFFICIAL_META_KEY]);
  const official: RegistryOfficialMeta | null = meta.success
    ? {
        status: meta.data.status,
        ...(meta.data.statusMessage !== undefined && { statusMessage: meta.data.statusMessage }),
        ...(meta.data.isLatest !== undefined && { isLatest: meta.data.isLatest }),
        ...(meta.data.publishedAt !== undefined && { publishedAt: meta.data.publishedAt }),
        ...(meta.data.updatedAt !== undefined && { updatedAt: meta.data.updatedAt }),
      }
    : null;
  const { server } = entry;
  return {
    name: server.name,
    description: server.description,
    version: server.version,
    ...(server.title !== undefined && { title: server.title }),
    packages: readable(server.packages, packageDocument, toPackage),
    remotes: readable(server.remotes, remoteDocument, toRemote),
    official,
  };
}

export interface ServerListPage {
  readonly servers: RegistryServer[];
  /** Null on the last page. */
  readonly nextCursor: string | null;
}

/** Reads one page of `GET /v0/servers`; null when the document is not a server list at all. */
export function readServerList(document: unknown): ServerListPage | null {
  const parsed = serverList.safeParse(document);
  if (!parsed.success) return null;
  const cursor = parsed.data.metadata?.nextCursor;
  return {
    servers: readable(parsed.data.servers, serverResponse, toServer),
    nextCursor: typeof cursor === "string" && cursor !== "" ? cursor : null,
  };
}
