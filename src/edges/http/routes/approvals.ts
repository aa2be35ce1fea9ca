import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { OPERATIONS as op } from "../../../app/catalog.js";
import type { RequestContext } from "../../../app/context.js";
import type { ApprovalRouteServices } from "../../../app/edge-services.js";
import { SIGNATURE_HEADER, TIMESTAMP_HEADER } from "../../../app/ports/callback-verifier.js";
import { APPROVAL_MESSAGES, ApprovalRefusal } from "../../../domain/approval/approval-refusal.js";
import { GatewayError } from "../../../domain/errors.js";
import { MALFORMED_BODY } from "../plugins/json-body.js";
import { bodyWith } from "./route-input.js";

/** Where chat tools post their signed decisions; outside `/api`, since the signature is the credential. */
export const APPROVAL_CALLBACK_PATH = "/hooks/approvals";

/** Longest accepted `actor` of a callback (a chat tool's user id or name). */
const MAX_ACTOR_CHARS = 200;

/**
 * Runs an approval operation. Its refusals are catalogue errors with the approval routes' flat
 * bodies (`{error:'<message>'}`, spec 1 §4), written by the one REST error mapping; a field the
 * route does not take is the 422 every route gives it, in that flat body (its message names the
 * field).
 */
export async function answerFlat(_reply: FastifyReply, run: () => Promise<unknown>): Promise<unknown> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof GatewayError && error.type === "ValidationError") {
      throw new ApprovalRefusal(422, { error: error.message });
    }
    throw error;
  }
}

const notAnObject = () => new ApprovalRefusal(400, { error: "request body must be a JSON object" });

/**
 * The operation's input from the body and the path, as every route builds it ({@link bodyWith}),
 * a body that is not an object answered in the approval routes' own flat 400.
 */
function bodyObject(body: unknown, fromPath: Record<string, unknown> = {}): Record<string, unknown> {
  if (body === undefined || body === null) return { ...fromPath };
  if (body === MALFORMED_BODY || typeof body !== "object" || Array.isArray(body)) throw notAnObject();
  return bodyWith(body, fromPath);
}

/**
 * The body of an approval route with one (`POST /approvals/{id}/resolve`): without a gate every
 * approval route answers 503 (decisions "Approvals"), whatever the body, so it is not read then.
 */
export function approvalBody(
  services: Pick<ApprovalRouteServices, "approvals">,
  body: unknown,
  fromPath: Record<string, unknown>,
): Record<string, unknown> {
  return services.approvals ? bodyObject(body, fromPath) : fromPath;
}

/**
 * `POST /hooks/approvals`: a chat tool's signed decision (docs/approvals.md "Signed callbacks").
 * Headers `X-Airlock-Timestamp` and `X-Airlock-Signature: sha256=<hex>` (HMAC-SHA256 of
 * `<timestamp>.<raw body>` under the channel's `signing_secret`); body
 * `{approval_id, decision, reason?, actor}`. Answers like the resolve route, and 401 for a missing,
 * wrong or stale signature. The body is read raw, since the signature covers its exact bytes.
 */
export async function approvalCallbackRoutes(
  app: FastifyInstance,
  services: ApprovalRouteServices,
): Promise<void> {
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", { parseAs: "string" }, (_request, body, done) => done(null, body));
    scope.post(APPROVAL_CALLBACK_PATH, (request, reply) =>
      answerFlat(reply, async () => {
        const gate = services.approvals;
        if (!gate) throw new ApprovalRefusal(503, { error: APPROVAL_MESSAGES.noGate });
        const raw = typeof request.body === "string" ? request.body : "";
        const verdict = gate.callbacks?.verify({
          body: raw,
          timestamp: header(request, TIMESTAMP_HEADER),
          signature: header(request, SIGNATURE_HEADER),
          now: services.clock.now() / 1000,
        }) ?? { ok: false, reason: "mismatch" };
        if (!verdict.ok) {
          throw new ApprovalRefusal(401, {
            error:
              verdict.reason === "stale"
                ? "Signature timestamp outside the accepted window"
                : "Invalid or missing signature",
          });
        }
        let parsed: unknown;
        try {
          parsed = JSON.parse(raw);
        } catch {
          throw notAnObject();
        }
        const { actor, ...fields } = bodyObject(parsed);
        if (typeof actor !== "string" || actor.trim() === "" || actor.length > MAX_ACTOR_CHARS) {
          throw new ApprovalRefusal(400, {
            error: `actor must be a non-empty string of at most ${MAX_ACTOR_CHARS} characters`,
          });
        }
        // The signature authenticated the channel; the decider is the chat user it names.
        const ctx: RequestContext = {
          principal: {
            id: `${verdict.channel}:${actor.trim()}`,
            type: "api_key",
            tenant_id: null,
            roles: [],
          },
          authenticated: true,
          channel: "rest",
          clientAddress: request.ip,
        };
        return services.operations.execute(
          op.resolveApprovalCallback,
          // The channel is the one whose secret signed the body: a body naming one is refused.
          bodyWith(fields, { channel: verdict.channel }),
          ctx,
          { route: `POST ${APPROVAL_CALLBACK_PATH}` },
        );
      }),
    );
  });
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
