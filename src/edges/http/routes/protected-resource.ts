import type { FastifyInstance } from "fastify";

/** RFC 9728 §3: the well-known path of protected resource metadata. */
export const PROTECTED_RESOURCE_PATH = "/.well-known/oauth-protected-resource";

/** What the document advertises (from `auth.oidc`). */
export interface ProtectedResourceMetadata {
  /** `oidc.resource_uri`: the resource identifier tokens must name in `aud`. */
  readonly resource: string;
  /** Issuers whose tokens are accepted. */
  readonly authorizationServers: readonly string[];
}

/**
 * The metadata URL of a resource (RFC 9728 §3.1): the well-known path goes between the host and the
 * resource's path, so `https://gw.example.com/mcp` is described at
 * `https://gw.example.com/.well-known/oauth-protected-resource/mcp`. For `WWW-Authenticate`'s
 * `resource_metadata` parameter.
 */
export function protectedResourceMetadataUrl(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === "/" ? "" : url.pathname.replace(/\/+$/, "");
  return `${url.origin}${PROTECTED_RESOURCE_PATH}${path}`;
}

function resourcePath(resource: string): string {
  try {
    return new URL(resource).pathname.replace(/\/+$/, "");
  } catch {
    return "";
  }
}

/**
 * `GET /.well-known/oauth-protected-resource` (outside `/api`, unauthenticated like any discovery
 * document), also under the resource's own path as RFC 9728 §3.1 forms it
 * (`/.well-known/oauth-protected-resource/mcp` for a resource ending in `/mcp`). 404 while
 * `metadata` gives null (no `oidc.resource_uri`). `metadata` is read on every request, so a
 * getter over the live configuration follows a reload.
 */
export function protectedResourceRoutes(
  app: FastifyInstance,
  metadata: ProtectedResourceMetadata | null | (() => ProtectedResourceMetadata | null),
): void {
  const current = typeof metadata === "function" ? metadata : () => metadata;
  const document = (described: ProtectedResourceMetadata) => ({
    resource: described.resource,
    authorization_servers: [...described.authorizationServers],
    bearer_methods_supported: ["header"],
  });

  app.get(PROTECTED_RESOURCE_PATH, async (_request, reply) => {
    const described = current();
    if (described === null) return reply.callNotFound();
    return reply.send(document(described));
  });

  app.get<{ Params: { "*": string } }>(`${PROTECTED_RESOURCE_PATH}/*`, async (request, reply) => {
    const described = current();
    const path = resourcePath(described?.resource ?? "");
    if (described === null || path === "" || `/${request.params["*"]}`.replace(/\/+$/, "") !== path) {
      return reply.callNotFound();
    }
    return reply.send(document(described));
  });
}
