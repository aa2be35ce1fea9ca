/**
 * The SSRF policy for remote endpoints registered through REST (spec 1 §4 rule 2), and the HTTP
 * clients that apply it again on every connection.
 *
 * Who is checked is the caller's choice: endpoints registered through REST (`source: 'api'`) are;
 * endpoints from the configuration file are trusted and discovery-supplied ones are exempt.
 */
export interface EndpointGuard {
  /**
   * Resolves when `url` may be used as a remote endpoint now. Rejects with
   * `RequestRejected(400, 'ssrf_blocked', detail)` (from `domain/errors`) when the URL is not an
   * absolute http(s) URL, carries credentials (`user:pass@`), names a refused address in any
   * encoding, or names a host that does not resolve or of which at least one resolved address is
   * refused. Addresses inside `ssrf.trusted_networks` are accepted. `detail` says why in words and
   * names the host, never the rest of the URL.
   *
   * Not guaranteed: that the host resolves the same way later (DNS rebinding). Connections must go
   * through an {@link HttpClient} created with `guarded: true`, which checks every address it
   * actually connects to.
   */
  assertAllowed(url: string): Promise<void>;
}

/** The `fetch` signature the MCP SDK transports accept. */
export type FetchFunction = (url: string | URL, init?: RequestInit) => Promise<Response>;

export interface HttpClientOptions {
  /**
   * Apply the SSRF policy on every request and every new TCP connection: the URL's host is checked
   * (address literals) or resolved again at connect time and the connection refused when any
   * address it resolves to is refused. Refusals reject with the `RequestRejected` of
   * {@link EndpointGuard.assertAllowed}.
   */
  readonly guarded: boolean;
  /** Longest wait for a TCP (and TLS) connection to be established. */
  readonly connectTimeoutMs: number;
  readonly tls: {
    /** False disables certificate verification for this client only. */
    readonly verify: boolean;
    /** A PEM file of CA certificates trusted in addition to the default ones. */
    readonly caCertPath?: string;
  };
}

/**
 * An HTTP client for one upstream: its own connection pool, TLS settings and policy.
 *
 * Guaranteed: `fetch` never follows a redirect (it answers the 3xx response itself, whatever
 * `init.redirect` says), so a caller that follows one calls `fetch` again and the target is
 * checked like any other URL; `close()` is idempotent and destroys every socket of the client.
 * Not guaranteed: read timeouts (a streaming response may stay silent for long; the caller bounds
 * silence per request with its `signal`).
 */
export interface HttpClient {
  readonly fetch: FetchFunction;
  close(): Promise<void>;
}

export interface HttpClientFactory {
  /** Rejects with an Error whose message is safe to show (an unreadable `caCertPath`). */
  create(options: HttpClientOptions): Promise<HttpClient>;
}
