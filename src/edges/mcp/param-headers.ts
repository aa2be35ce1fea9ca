import type { IncomingHttpHeaders } from "node:http";
import type { ParamHeaderServices } from "../../app/edge-services.js";
import { GatewayError } from "../../domain/errors.js";
import { paramHeaderVerdict } from "../../domain/policy/param-headers.js";
import { jsonRpcError } from "./error-mapping.js";

/**
 * Checks the `Mcp-Param-*` headers of a `tools/call` against its arguments, as the called tool's
 * input schema annotates them (`x-mcp-header`); throws JSON-RPC -32020 `HEADER_MISMATCH` when they
 * disagree, or with `headers.param_validation.required` when they cannot be verified.
 *
 * Applies to requests that came over HTTP (`headers` present); stdio carries no headers. The schema
 * is that of the tool the request names: an upstream tool on the front door; on the egress endpoint
 * a management tool such as `gateway_call`, which annotates nothing, so headers there are never
 * compared with the upstream calls of a batch (one request, many calls) and, when validation is
 * required, any `Mcp-Param-*` header on them is refused as unverifiable.
 */
export function checkParamHeaders(
  services: ParamHeaderServices,
  tool: { name: string; inputSchema: unknown },
  args: Record<string, unknown>,
  headers: IncomingHttpHeaders | undefined,
): void {
  if (!headers) return;
  const required = services.settings.paramHeadersRequired ?? false;
  const refusal = paramHeaderVerdict(tool.inputSchema, args, headers, required);
  if (!refusal) return;
  // Header and argument values stay out of the log and the answer: they may be confidential.
  services.logger.info(
    { tool: tool.name, header: refusal.header, problem: refusal.kind },
    "tools/call refused: Mcp-Param header check failed",
  );
  throw jsonRpcError(
    new GatewayError("HEADER_MISMATCH", `HEADER_MISMATCH: ${refusal.reason}`, {
      error_type: "HEADER_MISMATCH",
      header: refusal.header,
      problem: refusal.kind,
    }),
  );
}
