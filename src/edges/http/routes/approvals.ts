import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { OPERATIONS as op } from "../../../app/catalog.js";
import type { RequestContext } from "../../../app/context.js";
import { execute } from "../../../app/execute.js";
import { SIGNATURE_HEADER, TIMESTAMP_HEADER } from "../../../app/ports/callback-verifier.js";
import type { AppServices } from "../../../app/services.js";
import { APPROVAL_MESSAGES, ApprovalRefusal } from "../../../domain/approval/approval-refusal.js";
import { MALFORMED_BODY } from "../plugins/json-body.js";
import { restContext } from "../request-context.js";

type IdParams = { Params: { id: string } };

/** Where chat tools post their signed decisions; outside `/api`, since the signature is the credential. */
export const APPROVAL_CALLBACK_PATH = "/hooks/approvals";

/** Longest accepted `actor` of a callback (a chat tool's user id or name). */
const MAX_ACTOR_CHARS = 200;

const first = (value: string | string[] | undefined): string | undefined => [value].flat()[0];

/**
 * Runs an approval operation and answers its refusals with the flat bodies of the approval routes
 * (`{error:'<message>'}`, spec 1 §4); every other error goes to the one REST error mapping.
 */
async function answer(reply: FastifyReply, run: () => Promise<unknown>): Promise<unknown> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ApprovalRefusal) return reply.status(error.status).send(error.body);
    throw error;
  }
}

const notAnObject = () => new ApprovalRefusal(400, { error: "request body must be a JSON object" });

function bodyObject(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (body === MALFORMED_BODY || typeof body !== "object" || Array.isArray(body)) throw notAnObject();
  return body as Record<string, unknown>;
}

/** `/api/approvals` (spec 1 §4, decisions "Approvals"): list, read, resolve. */
export function approvalRoutes(api: FastifyInstance, services: AppServices): void {
  api.get<{ Querystring: { state?: string | string[]; provider_id?: string | string[] } }>(
    "/approvals",
    (request, reply) =>
      answer(reply, () =>
        execute(
          services,
          op.listApprovals,
          { state: first(request.query.state), provider_id: first(request.query.provider_id) },
          restContext(request),
        ),
      ),
  );

  api.get<IdParams>("/approvals/:id", (request, reply) =>
    answer(reply, () =>
      execute(services, op.getApproval, { approval_id: request.params.id }, restContext(request)),
    ),
  );

  api.post<IdParams>("/approvals/:id/resolve", (request, reply) =>
    answer(reply, async () => {
      // Without a gate every approval route answers 503 (decisions "Approvals"), whatever the body.
      const body = services.approvals ? bodyObject(request.body) : {};
      return execute(
        services,
        op.resolveApproval,
        { approval_id: request.params.id, decision: body.decision, reason: body.reason },
        restContext(request),
      );
    }),
  );
}

/**
 * `POST /hooks/approvals`: a chat tool's signed decision (docs/approvals.md "Signed callbacks").
 * Headers `X-Airlock-Timestamp` and `X-Airlock-Signature: sha256=<hex>` (HMAC-SHA256 of
 * `<timestamp>.<raw body>` under the channel's `signing_secret`); body
 * `{approval_id, decision, reason?, actor}`. Answers like the resolve route, and 401 for a missing,
 * wrong or stale signature. The body is read raw, since the signature covers its exact bytes.
 */
export async function approvalCallbackRoutes(app: FastifyInstance, services: AppServices): Promise<void> {
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", { parseAs: "string" }, (_request, body, done) => done(null, body));
    scope.post(APPROVAL_CALLBACK_PATH, (request, reply) =>
      answer(reply, async () => {
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
        const body = bodyObject(parsed);
        const actor = body.actor;
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
        return execute(
          services,
          op.resolveApprovalCallback,
          {
            channel: verdict.channel,
            approval_id: body.approval_id,
            decision: body.decision,
            reason: body.reason,
          },
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
