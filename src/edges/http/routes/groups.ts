import type { FastifyInstance, FastifyRequest } from "fastify";
import type { z } from "zod";
import { OPERATIONS as op } from "../../../app/catalog.js";
import { execute } from "../../../app/execute.js";
import type { Operation } from "../../../app/operation.js";
import type { AppServices } from "../../../app/services.js";
import { restContext } from "../request-context.js";
import { bodyWith } from "./route-input.js";

type GroupParams = { Params: { id: string } };

/** `/api/groups` (spec 1 §4 "Groups"). */
export function groupRoutes(app: FastifyInstance, services: AppServices): void {
  const run = <S extends z.ZodType, O>(operation: Operation<S, O>, input: unknown, request: FastifyRequest) =>
    execute(services, operation, input, restContext(request));

  app.get("/groups/", async (request) => {
    const { groups } = await run(op.listGroups, {}, request);
    return { groups };
  });
  app.post("/groups/", async (request, reply) =>
    reply.status(201).send(await run(op.createGroup, bodyWith(request.body), request)),
  );
  app.get<GroupParams>("/groups/:id", async (request) =>
    run(op.getGroup, { group: request.params.id }, request),
  );
  app.put<GroupParams>("/groups/:id", async (request) =>
    run(op.updateGroup, bodyWith(request.body, { group: request.params.id }), request),
  );
  app.delete<GroupParams>("/groups/:id", async (request) =>
    run(op.deleteGroup, bodyWith(request.body, { group: request.params.id }), request),
  );
  app.post<GroupParams>("/groups/:id/rebalance", async (request) => {
    const result = await run(
      op.rebalanceGroup,
      bodyWith(request.body, { group: request.params.id }),
      request,
    );
    return { status: result.status, group_id: result.group_id };
  });
  app.post<GroupParams>("/groups/:id/members", async (request, reply) =>
    reply
      .status(201)
      .send(
        await run(op.addGroupMember, { group: request.params.id, body: bodyWith(request.body) }, request),
      ),
  );
  app.delete<{ Params: { id: string; member: string } }>("/groups/:id/members/:member", async (request) =>
    run(
      op.removeGroupMember,
      bodyWith(request.body, { group: request.params.id, member: request.params.member }),
      request,
    ),
  );
}
