import type { IncomingHttpHeaders } from "node:http";
import type { RequestId, Transport } from "@modelcontextprotocol/server";

/** A transport that tells the HTTP headers of a request it delivered (the session transport does). */
interface CarriesHeaders {
  requestHeaders(id: RequestId): IncomingHttpHeaders | undefined;
}

/** The HTTP headers of request `id`, when `transport` tells them. */
export function transportHeaders(
  transport: Transport | undefined,
  id: RequestId,
): IncomingHttpHeaders | undefined {
  const carrier = transport as Partial<CarriesHeaders> | undefined;
  return typeof carrier?.requestHeaders === "function" ? carrier.requestHeaders(id) : undefined;
}
