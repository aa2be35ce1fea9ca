import { connect } from "node:net";

/**
 * Longest wait for the collector to accept a TCP connection in {@link whenUnreachable}. A collector
 * that takes longer is treated as gone: the stop does not wait for it.
 */
const PROBE_TIMEOUT_MS = 1_000;

/**
 * Resolves once a TCP connection to the URL's host and port fails (refused, unknown host, no answer
 * within {@link PROBE_TIMEOUT_MS}); never resolves when it succeeds. Why: the OTLP exporter retries
 * a refused connection with backoff for its whole timeout, so the last flush at stop would wait
 * seconds for a collector that is not there; racing it against this ends that wait at once.
 */
export function whenUnreachable(url: string): Promise<void> {
  const parsed = new URL(url);
  const port = parsed.port === "" ? (parsed.protocol === "https:" ? 443 : 80) : Number(parsed.port);
  // URL keeps the brackets of an IPv6 literal; net.connect wants the bare address.
  const host = parsed.hostname.replace(/^\[(.*)\]$/, "$1");
  return new Promise<void>((resolve) => {
    const socket = connect({ host, port });
    socket.setTimeout(PROBE_TIMEOUT_MS, () => {
      socket.destroy();
      resolve();
    });
    socket.once("connect", () => socket.destroy());
    socket.once("error", () => resolve());
  });
}
