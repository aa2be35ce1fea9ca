import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  ErrorCode,
  InitializeRequestSchema,
  type JSONRPCMessage,
  type ServerNotification,
  type ServerRequest,
  type ServerResult,
} from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;
/** A request schema of the SDK's: an object whose `method` is a literal. */
type RequestSchema = z.ZodObject<{ method: z.ZodLiteral<string> }>;

/**
 * Connects `server` to `transport` with the SDK's own dispatch, and answers an `initialize` whose
 * params the SDK's schema refuses (no `protocolVersion`, say) with JSON-RPC -32602 naming the first
 * field and rule, before the SDK's handler of it would answer -32603 with the schema library's
 * issue dump. Everything goes through the `Transport` contract: the SDK installs its `onmessage`
 * on connect, and this hands each message on to it.
 *
 * The SDK tells a request from a response or a notification by parsing each incoming message with
 * up to three schemas; measured on a tools/call of the front door, that costs 5 to 10 µs of a call
 * of about 500 µs, which is kept rather than reaching into the SDK's private handlers.
 */
export async function connectSession(server: Server, transport: Transport): Promise<void> {
  await server.connect(transport);
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const refused = "method" in message && message.method === "initialize" && refusedParams(message);
    if (refused && "id" in message) {
      void transport.send({ jsonrpc: "2.0", id: message.id, error: refused }).catch(() => undefined);
      return;
    }
    deliver?.call(transport, message, extra);
  };
}

/**
 * Registers `handler` for the method of `schema`, with the request checked by `schema` first: one
 * it refuses is answered with JSON-RPC -32602 "Invalid params" naming the first field and rule,
 * where the SDK's `setRequestHandler(schema, …)` answers -32603 (or, for `tools/call`, -32602) with
 * the schema library's issue dump. The schema handed to the SDK reads the method alone and makes
 * the check, throwing the answer: the SDK parses with it before any wrapper of its own runs, and
 * answers a thrown error by its `code` and `message`.
 */
export function handleRequest<S extends RequestSchema>(
  server: Server,
  schema: S,
  handler: (request: z.output<S>, extra: Extra) => ServerResult | Promise<ServerResult>,
): void {
  const checked = schema
    .pick({ method: true })
    .loose()
    .superRefine((request) => {
      const parsed = schema.safeParse(request);
      if (!parsed.success) {
        const { code, message } = invalidParams(parsed.error);
        throw Object.assign(new Error(message), { code });
      }
    });
  // What reaches the handler passed `schema` (the loose parse keeps every field it read).
  server.setRequestHandler(checked, (request, extra) => handler(request as z.output<S>, extra));
}

/** The JSON-RPC error for a request the SDK's schema refuses, or false when it accepts it. */
function refusedParams(message: JSONRPCMessage): { code: number; message: string } | false {
  const parsed = InitializeRequestSchema.safeParse(message);
  return parsed.success ? false : invalidParams(parsed.error);
}

/** "Invalid params: <field>: <rule>", for the first issue of a refused request. */
function invalidParams(error: z.ZodError): { code: number; message: string } {
  const issue = error.issues[0];
  const path = (issue?.path ?? []).filter((key) => key !== "params").join(".");
  return {
    code: ErrorCode.InvalidParams,
    message: `Invalid params: ${path || "params"}: ${issue?.message ?? "invalid"}`,
  };
}
