import type { FastifyInstance, FastifyRequest } from "fastify";
import type { z } from "zod";
import { OPERATIONS as op } from "../../../app/catalog.js";
import { execute } from "../../../app/execute.js";
import type { Operation } from "../../../app/operation.js";
import type { AppServices } from "../../../app/services.js";
import { restContext } from "../request-context.js";
import { bodyWith } from "./route-input.js";

type IdParams = { Params: { id: string } };

/** `/api/mcp_servers/{id}/l7_policy`: the L7 egress policy of one MCP server (spec 1 §4). */
export function l7PolicyRoutes(app: FastifyInstance, services: AppServices): void {
  const run = <S extends z.ZodType, O>(operation: Operation<S, O>, input: unknown, request: FastifyRequest) =>
    execute(services, operation, input, restContext(request));

  app.get<IdParams>("/mcp_servers/:id/l7_policy", async (request) =>
    run(op.getL7Policy, { mcp_server: request.params.id }, request),
  );

  // POST and PUT are identical: attach, or replace the policy the server has.
  const attach = async (request: FastifyRequest<IdParams>) =>
    run(op.setL7Policy, { mcp_server: request.params.id, policy: bodyWith(request.body) }, request);
  app.post<IdParams>("/mcp_servers/:id/l7_policy", attach);
  app.put<IdParams>("/mcp_servers/:id/l7_policy", attach);

  app.delete<IdParams>("/mcp_servers/:id/l7_policy", async (request) =>
    run(op.deleteL7Policy, bodyWith(request.body, { mcp_server: request.params.id }), request),
  );
}
