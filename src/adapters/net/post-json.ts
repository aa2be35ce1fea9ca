/**
 * What a POST came to: the answer's status, or why no answer came (`timeout`, the network error's
 * code such as `ECONNREFUSED`, or `unreachable` when it names none). Never the URL: one may carry a
 * secret (webhook URLs, credentials).
 */
export type PostOutcome = { readonly status: number } | { readonly failure: string };

/**
 * POSTs a JSON body once, within `timeoutMs`. A redirect is a failure, never followed (it would
 * carry the body and the headers elsewhere). The answer's body is read and dropped, which frees the
 * connection for the next request.
 */
export async function postJson(
  url: string,
  body: string,
  options: { headers: Readonly<Record<string, string>>; timeoutMs: number },
): Promise<PostOutcome> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...options.headers },
      body,
      signal: AbortSignal.timeout(options.timeoutMs),
      redirect: "error",
    });
  } catch (error) {
    return { failure: networkFailure(error) };
  }
  await response.arrayBuffer().catch(() => undefined);
  return { status: response.status };
}

function networkFailure(error: unknown): string {
  if ((error as { name?: unknown } | null)?.name === "TimeoutError") return "timeout";
  const code = (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  return typeof code === "string" ? code : "unreachable";
}
