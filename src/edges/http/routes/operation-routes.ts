import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from "fastify";
import type { OperationRouteServices } from "../../../app/edge-services.js";
import { requireAuthEnabled } from "../../../app/operations/auth/auth-operation.js";
import { type QueryType, REST_BINDINGS, type RestBinding } from "../../../app/rest-routes.js";
import { GatewayError } from "../../../domain/errors.js";
import { restContext } from "../request-context.js";
import { answerFlat, approvalBody } from "./approvals.js";
import { booleanQuery, firstValue, integerQuery, type Query } from "./query-params.js";
import { bodyWith } from "./route-input.js";

/** What `execute` is told of a request the route's hook admitted (`plugins/authentication.ts`). */
const ADMITTED = { admitted: true } as const;

/**
 * Every `/api` route that runs an operation, generated from the catalog's REST bindings: each
 * request's input is built as its binding says, run through `execute`, and answered with the
 * binding's status and shape. The routes under `/auth` answer 503 while authentication is off,
 * before their body is even read (spec 1 "Auth management").
 */
export function operationRoutes(app: FastifyInstance, services: OperationRouteServices): void {
  for (const binding of REST_BINDINGS) {
    if (!binding.operation.adminOnly) app.route(routeOf(binding, services));
  }
  void app.register(async (auth) => {
    auth.addHook("onRequest", async () => requireAuthEnabled(services));
    for (const binding of REST_BINDINGS) {
      if (binding.operation.adminOnly) auth.route(routeOf(binding, services));
    }
  });
}

function routeOf(binding: RestBinding, services: OperationRouteServices) {
  const run = async (request: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    const ctx = restContext(request);
    const input = inputOf(binding, request, services);
    const admitted = request.caller?.admitted ? ADMITTED : undefined;
    // A tool call stops when its caller goes away (an approval hold stops waiting, as on MCP).
    const gone = binding.toolErrors ? callerGone(reply) : undefined;
    if (gone) ctx.signal = gone.signal;
    const execution = services.operations.execute(binding.operation, input, ctx, admitted);
    const result = binding.toolErrors
      ? await execution.catch(inWords).finally(() => gone?.release())
      : await execution;
    if (binding.status === 204) return reply.status(204).send();
    const body = binding.present ? binding.present(result as never) : result;
    return binding.status ? reply.status(binding.status).send(body) : body;
  };
  const handler: RouteHandlerMethod = binding.flat
    ? (request, reply) => answerFlat(reply, () => run(request, reply))
    : run;
  const headers = binding.headers;
  return {
    method: binding.method,
    url: binding.path,
    handler,
    // Set as the request arrives, right after the caller is admitted, so the route's refusals
    // carry them too (the body checks that run before the handler included).
    ...(headers && {
      onRequest: (_request: FastifyRequest, reply: FastifyReply, done: () => void) => {
        reply.headers(headers);
        done();
      },
    }),
  };
}

/** The operation's input from the request, as the binding maps path, query and body onto it. */
function inputOf(
  binding: RestBinding,
  request: FastifyRequest,
  services: OperationRouteServices,
): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  if (binding.params) {
    const params = request.params as Record<string, string>;
    for (const [field, param] of Object.entries(binding.params)) fields[field] = params[param];
  }
  if (binding.fixed) Object.assign(fields, binding.fixed);
  if (binding.query) {
    const query = request.query as Query;
    for (const [field, [name, type]] of Object.entries(binding.query)) {
      fields[field] = readQuery(query, name, type);
    }
  }
  const body = binding.body;
  if (body === undefined) return fields;
  if (body !== "fields") return { ...fields, [body.into]: bodyWith(request.body) };
  return binding.flat ? approvalBody(services, request.body, fields) : bodyWith(request.body, fields);
}

function readQuery(query: Query, name: string, type: QueryType): unknown {
  if (type === "integer") return integerQuery(query, name);
  if (type === "boolean") return booleanQuery(query, name);
  return firstValue(query[name]);
}

/**
 * A tool-level failure in the domain shape with its catalogue status and message, as a
 * `gateway_call` outcome names it (`RestBinding.toolErrors`); an unexpected error stays the 500
 * that names nothing.
 */
function inWords(error: unknown): never {
  if (error instanceof GatewayError && error.rest === "internal" && error.type !== "InternalServerError") {
    throw new GatewayError(error.type, error.message, error.details, {
      status: error.status,
      rest: "domain",
      subject: error.subject,
      upstream: error.upstream,
    });
  }
  throw error;
}

/** A signal aborted when the connection closes before the answer was written. */
function callerGone(reply: FastifyReply): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  const onClose = () => {
    if (!reply.raw.writableEnded) controller.abort();
  };
  reply.raw.on("close", onClose);
  return { signal: controller.signal, release: () => reply.raw.off("close", onClose) };
}
