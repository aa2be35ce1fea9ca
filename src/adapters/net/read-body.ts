/**
 * A response body as UTF-8 text, or null once it grows past `limit` bytes (reading stops there and
 * the rest is cancelled): a peer cannot make the gateway buffer more than it asked for.
 */
export async function readBodyWithin(response: Response, limit: number): Promise<string | null> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}
