import type { FastifyInstance } from "fastify";
import type { Logger } from "../../../app/ports/logger.js";
import { requestFields } from "./errors.js";

/**
 * `logging.access_log`: one INFO line per HTTP request once its response is sent: method, route
 * (the route's pattern, `/api/mcp_servers/:id/start`; a path no route serves without its query),
 * status, duration in milliseconds, the request id, the client's address (`MCP_TRUSTED_PROXIES`
 * decides whether `X-Forwarded-For` names it), and the principal's id when the caller was
 * authenticated. Never headers, query or body: any of them may carry a secret. Registered only
 * when on, so a gateway without it runs no hook at all.
 */
export function registerAccessLog(app: FastifyInstance, logger: Logger): void {
  app.addHook("onResponse", (request, reply, done) => {
    const caller = request.caller;
    logger.info(
      {
        ...requestFields(request),
        status: reply.statusCode,
        duration_ms: Math.round(reply.elapsedTime * 10) / 10,
        request_id: request.id,
        client_address: caller?.clientAddress ?? request.ip,
        ...(caller?.authenticated && { principal_id: caller.principal.id }),
      },
      "http request",
    );
    done();
  });
}
