import type { DeliveryOutcome } from "../../app/ports/approval-delivery.js";
import { postJson } from "../net/post-json.js";

/**
 * Statuses worth another attempt: timeouts, "too early", rate limits and server errors. Any other
 * 4xx means the endpoint refused this request as such, so retrying cannot help.
 */
const RETRYABLE_4XX = new Set([408, 425, 429]);

/**
 * POSTs a JSON body once, within `timeoutMs`. The outcome's reason names the status or the kind of
 * network failure only: a URL may carry a secret (Slack's incoming webhook URLs do) and is never
 * put in a reason or a log line.
 */
export async function deliverJson(
  url: string,
  body: string,
  headers: Readonly<Record<string, string>>,
  timeoutMs: number,
): Promise<DeliveryOutcome> {
  const outcome = await postJson(url, body, {
    headers: { "user-agent": "airlock-approvals", ...headers },
    timeoutMs,
  });
  if ("failure" in outcome)
    return { ok: false, permanent: false, reason: `request failed: ${kind(outcome.failure)}` };
  if (outcome.status >= 200 && outcome.status < 300) return { ok: true };
  const permanent = outcome.status < 500 && !RETRYABLE_4XX.has(outcome.status);
  return { ok: false, permanent, reason: `HTTP ${outcome.status}` };
}

function kind(failure: string): string {
  if (failure === "timeout") return "timed out";
  return failure === "unreachable" ? "network error" : failure;
}
