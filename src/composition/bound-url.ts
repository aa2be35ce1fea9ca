import type { AddressInfo } from "node:net";

/** The address the HTTP server actually bound, as a URL (`http://0.0.0.0:8080`, `http://[::]:8080`). */
export function boundUrl(bound: AddressInfo | string | null): string | null {
  if (bound === null || typeof bound === "string") return bound;
  const host = bound.family === "IPv6" || bound.address.includes(":") ? `[${bound.address}]` : bound.address;
  return `http://${host}:${bound.port}`;
}
