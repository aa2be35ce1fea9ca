import type { DeliveryOutcome } from "../../app/ports/approval-delivery.js";

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
export async function postJson(
  url: string,
  body: string,
  headers: Readonly<Record<string, string>>,
  timeoutMs: number,
): Promise<DeliveryOutcome> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": "airlock-approvals", ...headers },
      body,
      signal: AbortSignal.timeout(timeoutMs),
      redirect: "error",
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: unknown } }).cause?.code;
    const kind =
      (error as Error).name === "TimeoutError"
        ? "timed out"
        : typeof cause === "string"
          ? cause
          : "network error";
    return { ok: false, permanent: false, reason: `request failed: ${kind}` };
  }
  // The body is not needed; reading it frees the connection.
  await response.arrayBuffer().catch(() => undefined);
  if (response.ok) return { ok: true };
  const permanent = response.status < 500 && !RETRYABLE_4XX.has(response.status);
  return { ok: false, permanent, reason: `HTTP ${response.status}` };
}
