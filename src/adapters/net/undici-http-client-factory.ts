import type { LookupAddress, LookupOptions } from "node:dns";
import { readFile } from "node:fs/promises";
import type { LookupFunction } from "node:net";
import { rootCertificates } from "node:tls";
import { Agent, type RequestInit as UndiciRequestInit, fetch as undiciFetch } from "undici";
import type {
  FetchFunction,
  HttpClient,
  HttpClientFactory,
  HttpClientOptions,
} from "../../app/ports/endpoint-guard.js";
import { RequestRejected } from "../../domain/errors.js";
import type { DnsEndpointGuard } from "./dns-endpoint-guard.js";

/**
 * Builds one undici `Agent` (connection pool) per client, so TLS settings and the SSRF policy
 * apply to that upstream only.
 *
 * With `guarded: true`: each request's URL is checked first (scheme, credentials, address
 * literals: Node connects to a literal without any lookup), and the TCP connect of every new socket
 * resolves the name again through the guard's `resolveAllowed`, connecting only to the addresses it
 * returned, so the address judged is the address used (DNS rebinding cannot slip in between).
 * Redirects are never followed (`redirect: 'manual'` always): the 3xx goes back to the caller.
 */
export class UndiciHttpClientFactory implements HttpClientFactory {
  constructor(private readonly options: { guard: DnsEndpointGuard }) {}

  async create(options: HttpClientOptions): Promise<HttpClient> {
    const guard = options.guarded ? this.options.guard : undefined;
    const ca = options.tls.caCertPath === undefined ? undefined : await readCa(options.tls.caCertPath);
    const agent = new Agent({
      connect: {
        timeout: options.connectTimeoutMs,
        rejectUnauthorized: options.tls.verify,
        // `ca` replaces Node's bundled roots, so they are passed along: the file adds to them.
        ...(ca !== undefined && { ca: [...rootCertificates, ca] }),
        ...(guard !== undefined && { lookup: guardedLookup(guard) }),
      },
      // Disabled here: a standalone SSE stream is silent for as long as the server has nothing to
      // say. Callers bound silence per request through the signal they pass.
      headersTimeout: 0,
      bodyTimeout: 0,
    });
    return new UndiciHttpClient(agent, guard);
  }
}

async function readCa(path: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    throw new Error(`cannot read tls.ca_cert_path ${path} (${code})`);
  }
}

class UndiciHttpClient implements HttpClient {
  private closing: Promise<void> | undefined;

  constructor(
    private readonly agent: Agent,
    private readonly guard: DnsEndpointGuard | undefined,
  ) {}

  readonly fetch: FetchFunction = async (url, init) => {
    if (this.guard !== undefined) this.guard.checkUrl(url);
    const options = { ...init, redirect: "manual", dispatcher: this.agent } as UndiciRequestInit;
    try {
      // undici's Response is the class behind Node's global one; only the type declarations differ.
      return (await undiciFetch(url, options)) as unknown as Response;
    } catch (error) {
      throw policyRefusal(error) ?? error;
    }
  };

  close(): Promise<void> {
    this.closing ??= this.agent.destroy().catch(() => {});
    return this.closing;
  }
}

/** The guard's refusal when it is why `fetch failed` (undici wraps connect errors in `cause`). */
function policyRefusal(error: unknown): RequestRejected | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (current instanceof RequestRejected) return current;
    current = current.cause;
  }
  return undefined;
}

function wantedFamily(family: LookupOptions["family"]): 4 | 6 | undefined {
  if (family === 4 || family === "IPv4") return 4;
  if (family === 6 || family === "IPv6") return 6;
  return undefined;
}

/** A `net.connect` lookup that resolves through the guard and hands back only what it judged. */
function guardedLookup(guard: DnsEndpointGuard): LookupFunction {
  return (hostname, options, callback) => {
    guard.resolveAllowed(hostname).then(
      (addresses) => {
        const family = wantedFamily(options.family);
        const usable =
          family === undefined ? addresses : addresses.filter((entry) => entry.family === family);
        const first = usable[0];
        if (first === undefined) {
          const error: NodeJS.ErrnoException = new Error(`${hostname} has no IPv${family} address`);
          error.code = "ENOTFOUND";
          callback(error, "", 0);
          return;
        }
        if (options.all) {
          callback(
            null,
            usable.map((entry): LookupAddress => ({ address: entry.address, family: entry.family })),
          );
          return;
        }
        callback(null, first.address, first.family);
      },
      (error: unknown) => callback(error as NodeJS.ErrnoException, "", 0),
    );
  };
}
