import type { FastifyInstance, FastifyRequest } from "fastify";
import type { z } from "zod";
import { OPERATIONS as op } from "../../../app/catalog.js";
import { execute } from "../../../app/execute.js";
import type { Operation } from "../../../app/operation.js";
import type { AppServices } from "../../../app/services.js";
import { restContext } from "../request-context.js";
import { bodyWith } from "./route-input.js";

type ToolParams = { Params: { server: string; tool: string } };
type SessionParams = { Params: { session_id: string } };

/**
 * Governance routes (spec 1 "System, tools, sessions, admin"): runtime tool withdrawals, MCP session
 * suspension and the agent-pushed tool policy. A body is optional, but one that is not a JSON object
 * answers 400 `invalid_body` and changes nothing (a broken withdrawal body must not widen to every tenant).
 */
export function governanceRoutes(app: FastifyInstance, services: AppServices): void {
  const run = <S extends z.ZodType, O>(operation: Operation<S, O>, input: unknown, request: FastifyRequest) =>
    execute(services, operation, input, restContext(request));

  const tool = (request: FastifyRequest<ToolParams>) =>
    bodyWith(request.body, { mcp_server: request.params.server, tool: request.params.tool });
  app.post<ToolParams>("/admin/tools/:server/:tool/withdraw", async (request) =>
    run(op.withdrawTool, tool(request), request),
  );
  app.post<ToolParams>("/admin/tools/:server/:tool/restore", async (request) =>
    run(op.restoreTool, tool(request), request),
  );

  const session = (request: FastifyRequest<SessionParams>) =>
    bodyWith(request.body, { session_id: request.params.session_id });
  app.post<SessionParams>("/sessions/:session_id/suspend", async (request) =>
    run(op.suspendSession, session(request), request),
  );
  app.delete<SessionParams>("/sessions/:session_id/suspend", async (request) =>
    run(op.resumeSession, session(request), request),
  );

  app.post("/agent/policy", async (request) => run(op.setAgentPolicy, bodyWith(request.body), request));
}
