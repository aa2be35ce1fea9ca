import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { z } from "zod";
import { OPERATIONS as op } from "../../../app/catalog.js";
import { execute } from "../../../app/execute.js";
import type { Operation } from "../../../app/operation.js";
import type { AppServices } from "../../../app/services.js";
import { restContext } from "../request-context.js";
import { bodyWith } from "./route-input.js";

/** Spec 1 "Discovery": source registration, update, deletion, scan and enable are preview. */
export const PREVIEW_HEADER = "X-Gateway-Preview";
export const PREVIEW_VALUE = "discovery-source-management";

type SourceParams = { Params: { id: string } };
type NameParams = { Params: { name: string } };

/** `/api/discovery/*` (spec 1 §4 "Discovery"). */
export function discoveryRoutes(app: FastifyInstance, services: AppServices): void {
  const run = <S extends z.ZodType, O>(operation: Operation<S, O>, input: unknown, request: FastifyRequest) =>
    execute(services, operation, input, restContext(request));
  // Set when the request arrives, right after the caller is admitted, so the route's refusals carry
  // the header too (the body checks that run before the handler included).
  const preview = {
    onRequest: (_request: FastifyRequest, reply: FastifyReply, done: () => void) => {
      reply.header(PREVIEW_HEADER, PREVIEW_VALUE);
      done();
    },
  };

  app.get("/discovery/sources", async (request) => run(op.discoverySources, {}, request));
  app.post("/discovery/sources", preview, async (request, reply) =>
    reply.status(201).send(await run(op.registerDiscoverySource, bodyWith(request.body), request)),
  );
  app.put<SourceParams>("/discovery/sources/:id", preview, async (request) =>
    run(op.updateDiscoverySource, bodyWith(request.body, { source_id: request.params.id }), request),
  );
  app.delete<SourceParams>("/discovery/sources/:id", preview, async (request) =>
    run(op.deleteDiscoverySource, bodyWith(request.body, { source_id: request.params.id }), request),
  );
  app.post<SourceParams>("/discovery/sources/:id/scan", preview, async (request) =>
    run(op.scanDiscoverySource, bodyWith(request.body, { source_id: request.params.id }), request),
  );
  app.put<SourceParams>("/discovery/sources/:id/enable", preview, async (request) =>
    run(op.enableDiscoverySource, bodyWith(request.body, { source_id: request.params.id }), request),
  );
  app.get("/discovery/pending", async (request) => run(op.listPending, {}, request));
  app.get("/discovery/quarantined", async (request) => run(op.listQuarantined, {}, request));
  app.post<NameParams>("/discovery/approve/:name", async (request) =>
    run(op.approveDiscovered, bodyWith(request.body, { name: request.params.name, approve: true }), request),
  );
  app.post<NameParams>("/discovery/reject/:name", async (request) =>
    run(op.approveDiscovered, bodyWith(request.body, { name: request.params.name, approve: false }), request),
  );
}
