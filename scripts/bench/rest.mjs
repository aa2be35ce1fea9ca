// REST throughput with autocannon: requests/s of one GET, with its latency and failures.
import autocannon from "autocannon";

/** Concurrent HTTP connections autocannon keeps open. */
const CONNECTIONS = 10;

/**
 * `GET url` for `seconds` over CONNECTIONS connections (after a 1 s warm-up of the same). A
 * request counts as failed on a transport error, a timeout or a status other than 2xx.
 */
export async function measureGet(url, headers, seconds) {
  await autocannon({ url, headers, connections: CONNECTIONS, duration: 1 });
  const result = await autocannon({ url, headers, connections: CONNECTIONS, duration: seconds });
  return {
    connections: CONNECTIONS,
    seconds,
    requests: result.requests.total,
    requests_per_s: Math.round((result.requests.total / result.duration) * 10) / 10,
    latency_ms: { p50: result.latency.p50, p99: result.latency.p99 },
    failures: result.errors + result.timeouts + result.non2xx,
  };
}
