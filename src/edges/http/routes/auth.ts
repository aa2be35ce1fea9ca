import type { FastifyInstance, FastifyRequest } from "fastify";
import type { z } from "zod";
import { OPERATIONS as op } from "../../../app/catalog.js";
import { execute } from "../../../app/execute.js";
import type { Operation } from "../../../app/operation.js";
import { requireAuthEnabled } from "../../../app/operations/auth/auth-operation.js";
import type { AppServices } from "../../../app/services.js";
import { restContext } from "../request-context.js";
import { booleanQuery, firstValue as first, type Query } from "./query-params.js";
import { bodyWith } from "./route-input.js";

/**
 * `/api/auth/*`: API keys, roles, assignments, principals, permission checks and tool access
 * policies (spec 1 "Auth management"). Every route answers 503 while authentication is off, before
 * its body is even read; with it on, only a global admin passes (checked by the operations, and by
 * the route table before them).
 */
export function authRoutes(app: FastifyInstance, services: AppServices): void {
  void app.register(async (auth) => {
    auth.addHook("onRequest", async () => requireAuthEnabled(services));

    const run = <S extends z.ZodType, O>(
      operation: Operation<S, O>,
      input: unknown,
      request: FastifyRequest,
    ) => execute(services, operation, input, restContext(request));

    auth.post("/auth/keys", async (request, reply) =>
      reply.status(201).send(await run(op.createApiKey, bodyWith(request.body), request)),
    );

    auth.delete<{ Params: { key_id: string } }>("/auth/keys/:key_id", async (request) =>
      run(op.revokeApiKey, bodyWith(request.body, { key_id: request.params.key_id }), request),
    );

    auth.get<{ Querystring: Query }>("/auth/keys", async (request) =>
      run(
        op.listApiKeys,
        {
          principal_id: first(request.query.principal_id),
          include_revoked: booleanQuery(request.query, "include_revoked"),
        },
        request,
      ),
    );

    auth.get<{ Querystring: Query }>("/auth/roles/all", async (request) =>
      run(op.listAllRoles, { include_builtin: booleanQuery(request.query, "include_builtin") }, request),
    );

    auth.get("/auth/roles", async (request) => run(op.listBuiltinRoles, {}, request));

    auth.post("/auth/roles", async (request, reply) =>
      reply.status(201).send(await run(op.createRole, bodyWith(request.body), request)),
    );

    auth.post("/auth/roles/assign", async (request) => run(op.assignRole, bodyWith(request.body), request));

    auth.delete("/auth/roles/revoke", async (request) => run(op.revokeRole, bodyWith(request.body), request));

    auth.get<{ Params: { role_name: string } }>("/auth/roles/:role_name", async (request) =>
      run(op.getRole, { role_name: request.params.role_name }, request),
    );

    auth.patch<{ Params: { role_name: string } }>("/auth/roles/:role_name", async (request) =>
      run(op.updateRole, bodyWith(request.body, { role_name: request.params.role_name }), request),
    );

    auth.delete<{ Params: { role_name: string } }>("/auth/roles/:role_name", async (request, reply) => {
      await run(op.deleteRole, bodyWith(request.body, { role_name: request.params.role_name }), request);
      return reply.status(204).send();
    });

    auth.get("/auth/principals", async (request) => run(op.listPrincipals, {}, request));

    auth.get<{ Querystring: Query }>("/auth/principals/roles", async (request) =>
      run(
        op.principalRoles,
        { principal_id: first(request.query.principal_id), scope: first(request.query.scope) },
        request,
      ),
    );

    auth.get("/auth/permissions", async (request) => run(op.listPermissions, {}, request));

    auth.post("/auth/check-permission", async (request) =>
      run(op.checkPermission, bodyWith(request.body), request),
    );

    type PolicyParams = { Params: { scope: string; target_id: string } };

    auth.get<PolicyParams>("/auth/policies/:scope/:target_id", async (request) =>
      run(op.getToolPolicy, { ...request.params }, request),
    );

    auth.post<PolicyParams>("/auth/policies/:scope/:target_id", async (request) =>
      run(op.setToolPolicy, bodyWith(request.body, { ...request.params }), request),
    );

    auth.delete<PolicyParams>("/auth/policies/:scope/:target_id", async (request, reply) => {
      await run(op.deleteToolPolicy, bodyWith(request.body, { ...request.params }), request);
      return reply.status(204).send();
    });
  });
}
