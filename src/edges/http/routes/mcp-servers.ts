import type { FastifyInstance, FastifyRequest } from "fastify";
import type { z } from "zod";
import { OPERATIONS as op } from "../../../app/catalog.js";
import { execute } from "../../../app/execute.js";
import type { Operation } from "../../../app/operation.js";
import type { AppServices } from "../../../app/services.js";
import { restContext } from "../request-context.js";
import { firstValue, integerQuery, type Query } from "./query-params.js";
import { bodyWith } from "./route-input.js";

type IdParams = { Params: { id: string } };

/** `/api/mcp_servers`: registration, lifecycle and read models of MCP servers (spec 1 §4). */
export function mcpServerRoutes(app: FastifyInstance, services: AppServices): void {
  const run = <S extends z.ZodType, O>(operation: Operation<S, O>, input: unknown, request: FastifyRequest) =>
    execute(services, operation, input, restContext(request as FastifyRequest));

  app.get<{ Querystring: Query }>("/mcp_servers/", async (request) => {
    const state = firstValue(request.query.state) ?? null;
    const result = await run(op.listServers, { state_filter: state }, request);
    return { mcp_servers: result.mcp_servers };
  });

  app.post("/mcp_servers/", async (request, reply) => {
    const result = await run(op.registerServer, bodyWith(request.body), request);
    return reply.status(201).send(result);
  });

  app.get<IdParams>("/mcp_servers/:id", async (request) => {
    const result = await run(op.getServer, { mcp_server: request.params.id }, request);
    // The REST detail object has no tool policy summary (the tool view does).
    if (!("tools_policy" in result)) return result;
    const { tools_policy: _policy, ...detail } = result;
    return detail;
  });

  const update = async (request: FastifyRequest<IdParams>) =>
    run(op.updateServer, bodyWith(request.body, { mcp_server: request.params.id }), request);
  app.put<IdParams>("/mcp_servers/:id", update);
  app.patch<IdParams>("/mcp_servers/:id", update);

  app.delete<IdParams>("/mcp_servers/:id", async (request) =>
    run(op.deleteServer, bodyWith(request.body, { mcp_server: request.params.id }), request),
  );

  app.post<IdParams>("/mcp_servers/:id/start", async (request) =>
    run(op.startServer, bodyWith(request.body, { mcp_server: request.params.id }), request),
  );

  app.post<IdParams>("/mcp_servers/:id/stop", async (request) =>
    run(op.stopServer, bodyWith(request.body, { mcp_server: request.params.id }), request),
  );

  app.post<IdParams>("/mcp_servers/:id/block", async (request) =>
    run(op.blockServer, bodyWith(request.body, { mcp_server: request.params.id }), request),
  );

  app.get<IdParams>("/mcp_servers/:id/tools", async (request) => {
    const result = await run(op.serverTools, { mcp_server: request.params.id, start: false }, request);
    return { tools: result.tools };
  });

  app.get<IdParams & { Querystring: Query }>("/mcp_servers/:id/tools/history", async (request) =>
    run(
      op.toolHistory,
      {
        mcp_server: request.params.id,
        limit: integerQuery(request.query, "limit"),
        from_position: integerQuery(request.query, "from_position"),
      },
      request,
    ),
  );

  app.get<IdParams>("/mcp_servers/:id/health", async (request) =>
    run(op.serverHealth, { mcp_server: request.params.id }, request),
  );

  app.get<IdParams & { Querystring: Query }>("/mcp_servers/:id/logs", async (request) =>
    run(
      op.serverLogs,
      { mcp_server: request.params.id, lines: integerQuery(request.query, "lines") },
      request,
    ),
  );
}
