import { setTimeout as sleep } from "node:timers/promises";
import { Agent, request } from "undici";
import type { McpRegistry, RegistryServer } from "../../app/ports/mcp-registry.js";
import { readServerList } from "./registry-documents.js";

export interface HttpMcpRegistryOptions {
  /** `hot_loading.registry.base_url`: the API lives under `<base_url>/v0/`. */
  readonly baseUrl: string;
  /** `hot_loading.registry.timeout_s`, in milliseconds: one attempt, connect to last body byte. */
  readonly timeoutMs: number;
  /** `hot_loading.registry.max_retries`: further attempts after a network error or a 5xx answer. */
  readonly maxRetries: number;
  /** Wait before the first retry; each further retry waits twice as long, up to {@link MAX_BACKOFF_MS}. */
  readonly backoffMs?: number;
  readonly userAgent?: string;
}

/** First retry delay: long enough for a restarting registry behind a load balancer. */
export const DEFAULT_BACKOFF_MS = 500;
/** Longest wait between two attempts, so that retries never dwarf the timeout. */
export const MAX_BACKOFF_MS = 8_000;
/** Entries asked for per page: the registry's own maximum. */
export const PAGE_SIZE = 100;
/**
 * Pages read per search. A lookup by name needs the entries matching the name; past 500 the term
 * is too vague to identify one server anyway, and the caller is told the answer was ambiguous.
 */
export const MAX_PAGES = 5;
/** Largest page body accepted: a full page of rich entries is well under 1 MiB. */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;

/** A failure worth another attempt (network error, timeout, 5xx), or not (anything else). */
class AttemptFailure extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

/**
 * The MCP registry's `v0` servers API over HTTP with undici: `GET <base>/v0/servers?search=<term>
 * &version=latest&limit=100`, following `metadata.nextCursor` for up to {@link MAX_PAGES} pages.
 *
 * Guaranteed: each attempt ends within `timeoutMs`; network errors, timeouts and 5xx answers are
 * retried `maxRetries` times with doubling waits; other statuses and unreadable documents fail at
 * once. Rejections carry messages naming the registry's host only (never the base URL's
 * credentials or query). Redirects are not followed.
 */
export class HttpMcpRegistry implements McpRegistry {
  private readonly endpoint: URL;
  private readonly host: string;
  // Its own pool: registry lookups never share sockets with upstream traffic. Idle sockets are
  // unreferenced by undici, so the pool does not keep the process alive.
  private readonly agent = new Agent({ keepAliveTimeout: 10_000 });

  constructor(private readonly options: HttpMcpRegistryOptions) {
    const base = new URL(options.baseUrl);
    if (!base.pathname.endsWith("/")) base.pathname = `${base.pathname}/`;
    this.endpoint = new URL("v0/servers", base);
    this.host = base.host;
  }

  async search(term: string): Promise<readonly RegistryServer[]> {
    const servers: RegistryServer[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < MAX_PAGES; page++) {
      const url = new URL(this.endpoint);
      url.searchParams.set("search", term);
      url.searchParams.set("version", "latest");
      url.searchParams.set("limit", String(PAGE_SIZE));
      if (cursor !== null) url.searchParams.set("cursor", cursor);
      const document = await this.getWithRetries(url);
      const list = readServerList(document);
      if (list === null)
        throw new Error(`registry ${this.host} answered a document that is not a server list`);
      servers.push(...list.servers);
      cursor = list.nextCursor;
      if (cursor === null) break;
    }
    return servers;
  }

  close(): Promise<void> {
    return this.agent.close();
  }

  private async getWithRetries(url: URL): Promise<unknown> {
    const backoff = this.options.backoffMs ?? DEFAULT_BACKOFF_MS;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.getOnce(url);
      } catch (error) {
        const failure =
          error instanceof AttemptFailure ? error : new AttemptFailure(this.networkMessage(error), true);
        if (!failure.retryable || attempt >= this.options.maxRetries) {
          throw new Error(
            attempt === 0 ? failure.message : `${failure.message} (after ${attempt + 1} attempts)`,
          );
        }
        await sleep(Math.min(MAX_BACKOFF_MS, backoff * 2 ** attempt));
      }
    }
  }

  private async getOnce(url: URL): Promise<unknown> {
    const signal = AbortSignal.timeout(this.options.timeoutMs);
    const response = await request(url, {
      method: "GET",
      dispatcher: this.agent,
      signal,
      headers: {
        accept: "application/json",
        ...(this.options.userAgent !== undefined && { "user-agent": this.options.userAgent }),
      },
    });
    const { statusCode, body } = response;
    if (statusCode !== 200) {
      await body.dump().catch(() => undefined);
      throw new AttemptFailure(`registry ${this.host} answered HTTP ${statusCode}`, statusCode >= 500);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of body) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY_BYTES) {
        body.destroy();
        throw new AttemptFailure(`registry ${this.host} answered more than ${MAX_BODY_BYTES} bytes`, false);
      }
      chunks.push(chunk as Buffer);
    }
    try {
      return JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      throw new AttemptFailure(`registry ${this.host} answered a body that is not JSON`, false);
    }
  }

  /** A safe message for an error thrown by the request itself (connect, TLS, timeout, reset). */
  private networkMessage(error: unknown): string {
    const name = (error as Error | undefined)?.name;
    if (name === "TimeoutError" || name === "AbortError") {
      return `registry ${this.host} did not answer within ${this.options.timeoutMs} ms`;
    }
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    return `cannot reach registry ${this.host}${code ? ` (${code})` : ""}`;
  }
}
