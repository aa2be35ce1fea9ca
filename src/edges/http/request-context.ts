import type { FastifyRequest } from "fastify";
import { ANONYMOUS, type RequestContext } from "../../app/context.js";

/** The caller of a REST request. Authentication plugs in here; until it is on, callers are anonymous. */
export function restContext(_request: FastifyRequest): RequestContext {
  return { principal: ANONYMOUS, authenticated: false, channel: "rest" };
}
