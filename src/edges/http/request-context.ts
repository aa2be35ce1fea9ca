import type { FastifyRequest } from "fastify";
import type { RequestContext } from "../../app/context.js";
import { callerOf } from "./plugins/authentication.js";

/** The caller of a REST request, as authentication established it (anonymous with auth off). */
export function restContext(request: FastifyRequest): RequestContext {
  const caller = callerOf(request);
  return {
    principal: caller.principal,
    authenticated: caller.authenticated,
    channel: "rest",
    clientAddress: caller.clientAddress,
    ...(caller.confinedTo !== undefined && { confinedTo: caller.confinedTo }),
    ...(caller.perResource && { perResource: true }),
    ...(caller.route !== undefined && { route: caller.route }),
    ...(caller.resourceId !== undefined && { resourceId: caller.resourceId }),
  };
}
