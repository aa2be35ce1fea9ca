/** What a browser is sent to the identity provider with (OAuth 2.0 authorization code, RFC 7636 PKCE). */
export interface AuthorizationRequest {
  /** Echoed back to the callback; ties it to the browser that began. */
  readonly state: string;
  /** BASE64URL(SHA-256(code verifier)): method `S256`. */
  readonly codeChallenge: string;
  /** Where the provider sends the browser back: registered with the provider. */
  readonly redirectUri: string;
}

export interface CodeExchange {
  readonly code: string;
  readonly codeVerifier: string;
  readonly redirectUri: string;
}

export type ExchangeOutcome =
  | { readonly ok: true; readonly accessToken: string | null; readonly idToken: string | null }
  /** `reason` is safe to show: never a token or a secret. */
  | { readonly ok: false; readonly reason: string };

/**
 * The console's sign-in through the configured OpenID Connect provider (`auth.oidc.issuer` and
 * `client_id`, a public client): where to send the browser, and the exchange of the code it comes
 * back with for tokens. The tokens are not trusted here: the caller verifies them as any bearer
 * token. Never throws on the provider's failures: they are outcomes.
 */
export interface OidcSignIn {
  /** The provider's authorization URL, or a reason when it cannot be reached. */
  authorizationUrl(request: AuthorizationRequest): Promise<{ url: string } | { reason: string }>;
  exchange(request: CodeExchange): Promise<ExchangeOutcome>;
}
