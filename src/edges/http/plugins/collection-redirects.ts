import type { FastifyInstance } from "fastify";

/**
 * Collections answer at their trailing-slash path; the bare path redirects (spec 1 §4; decided for
 * the catalog, a collection served again from spec 1's earlier revision).
 */
const COLLECTIONS = ["/mcp_servers", "/groups", "/tools", "/config", "/system", "/catalog"];
const ALL_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"] as const;

/** 307 keeps the method and the body, so a POST to the bare path is re-sent as a POST. */
export function registerCollectionRedirects(app: FastifyInstance, prefix: string): void {
  for (const path of COLLECTIONS) {
    app.route({
      method: [...ALL_METHODS],
      url: path,
      handler: async (request, reply) => {
        const query = request.url.includes("?") ? request.url.slice(request.url.indexOf("?")) : "";
        return reply.redirect(`${prefix}${path}/${query}`, 307);
      },
    });
  }
}
