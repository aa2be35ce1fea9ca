import { connect } from "node:net";

/**
 * Longest wait for the collector to accept a TCP connection. A collector that takes longer is
 * treated as gone.
 */
const PROBE_TIMEOUT_MS = 1_000;

/**
 * Whether a TCP connection to the URL's host and port succeeds (false: refused, unknown host, no
 * answer within {@link PROBE_TIMEOUT_MS}). Says nothing of what listens there.
 */
export function isReachable(url: string): Promise<boolean> {
  const parsed = new URL(url);
  const port = parsed.port === "" ? (parsed.protocol === "https:" ? 443 : 80) : Number(parsed.port);
  // URL keeps the brackets of an IPv6 literal; net.connect wants the bare address.
  const host = parsed.hostname.replace(/^\[(.*)\]$/, "$1");
  return new Promise<boolean>((resolve) => {
    const socket = connect({ host, port });
    socket.setTimeout(PROBE_TIMEOUT_MS, () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/**
 * Resolves once a TCP connection to the collector fails ({@link isReachable}); never resolves when
 * it succeeds. Why: the OTLP exporter retries a refused connection with backoff for its whole
 * timeout, so the last flush at stop would wait seconds for a collector that is not there; racing it
 * against this ends that wait at once.
 */
export function whenUnreachable(url: string): Promise<void> {
  return new Promise<void>((resolve) => {
    void isReachable(url).then((reachable) => {
      if (!reachable) resolve();
    });
  });
}
