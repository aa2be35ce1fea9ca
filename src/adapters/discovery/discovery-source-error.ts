/**
 * A failure to read the source itself. Its message is composed by the adapter and safe to show as
 * the source's `error_message`: it names the source and the cause, never a credential, token or
 * stack.
 */
export class DiscoverySourceError extends Error {
  override name = "DiscoverySourceError";
}

/** Rejects with the signal's reason when it is already aborted. */
export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new DiscoverySourceError("scan aborted");
}
