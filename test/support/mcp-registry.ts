import { createServer, type Server, type ServerResponse } from "node:http";

/**
 * A registry serving the MCP registry's `v0` servers API on 127.0.0.1, with the documents of the
 * real API (`ServerList` of `ServerResponse` entries, official metadata under `_meta`). It filters
 * like the official registry: `search` is a case-insensitive substring of the name or description,
 * `version=latest` keeps entries marked `isLatest`, deleted entries are hidden unless
 * `include_deleted=true`, and pages of `limit` (default 30, at most 100) are chained by an opaque
 * `metadata.nextCursor`.
 */

export interface KeyValueInput {
  name: string;
  description?: string;
  isRequired?: boolean;
  isSecret?: boolean;
  value?: string;
  default?: string;
}

export interface ServerDetail {
  name: string;
  description: string;
  version: string;
  title?: string;
  repository?: { url: string; source: string };
  packages?: {
    registryType: string;
    registryBaseUrl?: string;
    identifier: string;
    version?: string;
    transport: { type: string; url?: string };
    runtimeHint?: string;
    environmentVariables?: KeyValueInput[];
    packageArguments?: Record<string, unknown>[];
  }[];
  remotes?: { type: string; url: string; headers?: KeyValueInput[] }[];
}

export interface ServerEntry {
  server: ServerDetail;
  _meta?: Record<string, unknown>;
}

export const OFFICIAL = "io.modelcontextprotocol.registry/official";

/** An entry as the official registry lists it: `active` and the latest version unless told otherwise. */
export function officialEntry(
  server: ServerDetail,
  meta: { status?: "active" | "deprecated" | "deleted"; statusMessage?: string; isLatest?: boolean } = {},
): ServerEntry {
  return {
    server,
    _meta: {
      [OFFICIAL]: {
        status: meta.status ?? "active",
        ...(meta.statusMessage !== undefined && { statusMessage: meta.statusMessage }),
        publishedAt: "2026-01-15T10:30:00Z",
        updatedAt: "2026-01-15T10:30:00Z",
        isLatest: meta.isLatest ?? true,
      },
    },
  };
}

export interface McpRegistryFake {
  /** Base URL for `hot_loading.registry.base_url`. */
  readonly url: string;
  /** Path and query of every request received, in order. */
  readonly requests: string[];
  entries: ServerEntry[];
  /** The next `count` requests answer `status` with an error body. */
  failNext(count: number, status: number): void;
  /** The next `count` requests get no answer at all (until the registry closes). */
  stallNext(count: number): void;
  /** The next request is answered 200 with `body` as it is. */
  answerNext(body: unknown): void;
  close(): Promise<void>;
}

const DEFAULT_LIMIT = 30;
const MAX_LIMIT = 100;

export async function startMcpRegistry(entries: ServerEntry[] = []): Promise<McpRegistryFake> {
  const requests: string[] = [];
  const failures: number[] = [];
  let stalls = 0;
  const answers: unknown[] = [];
  const stalled: ServerResponse[] = [];
  const fake = {
    entries,
    requests,
    failNext(count: number, status: number) {
      for (let i = 0; i < count; i++) failures.push(status);
    },
    stallNext(count: number) {
      stalls += count;
    },
    answerNext(body: unknown) {
      answers.push(body);
    },
  };
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://registry.test");
    requests.push(`${url.pathname}${url.search}`);
    if (stalls > 0) {
      stalls--;
      stalled.push(res);
      return;
    }
    const failure = failures.shift();
    if (failure !== undefined) return json(res, failure, { error: "Internal Server Error" });
    if (answers.length > 0) return json(res, 200, answers.shift());
    if (req.method !== "GET" || url.pathname !== "/v0/servers") return json(res, 404, { error: "Not Found" });
    json(res, 200, listServers(fake.entries, url.searchParams));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return Object.assign(fake, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of stalled) res.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  });
}

function listServers(entries: readonly ServerEntry[], params: URLSearchParams) {
  const search = params.get("search")?.toLowerCase();
  const latestOnly = params.get("version") === "latest";
  const includeDeleted = params.get("include_deleted") === "true";
  const limit = Math.min(MAX_LIMIT, Number(params.get("limit") ?? DEFAULT_LIMIT) || DEFAULT_LIMIT);
  const selected = entries.filter((entry) => {
    const meta = entry._meta?.[OFFICIAL] as { status?: string; isLatest?: boolean } | undefined;
    if (!includeDeleted && meta?.status === "deleted") return false;
    if (latestOnly && meta?.isLatest === false) return false;
    if (search === undefined) return true;
    // Entries are matched on what they hold, so a test can serve malformed ones too.
    const text = (value: unknown) => (typeof value === "string" ? value.toLowerCase() : "");
    return text(entry.server?.name).includes(search) || text(entry.server?.description).includes(search);
  });
  const cursor = params.get("cursor");
  const start =
    cursor === null
      ? 0
      : Math.max(
          0,
          selected.findIndex((e) => cursorOf(e) === cursor),
        );
  const page = selected.slice(start, start + limit);
  const next = selected[start + limit];
  return {
    servers: page,
    metadata: { count: page.length, ...(next !== undefined && { nextCursor: cursorOf(next) }) },
  };
}

/** The official registry's cursors are `<name>:<version>` of the next entry; clients treat them as opaque. */
function cursorOf(entry: ServerEntry): string {
  return `${entry.server?.name}:${entry.server?.version}`;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}
