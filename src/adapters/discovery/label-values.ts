import { nameProblem, quote } from "./discovered-name.js";

/**
 * Readers of the endpoint labels (Docker) and annotations (Kubernetes) shared by both sources. Each
 * returns the value, or a problem phrase naming the key and the rule.
 */
export type LabelValue<T> = { readonly value: T } | { readonly problem: string };

/** Label values are strings; `true` (any case) enables, anything else leaves the item alone. */
export function isEnabled(value: string | undefined): boolean {
  return value?.trim().toLowerCase() === "true";
}

/** A TCP port 1-65535 written in decimal; `fallback` when the key is absent. */
export function readPort(key: string, value: string | undefined, fallback: number): LabelValue<number> {
  if (value === undefined) return { value: fallback };
  const text = value.trim();
  const port = Number(text);
  if (!/^\d+$/.test(text) || port < 1 || port > 65_535)
    return { problem: `${key} ${quote(value)} must be a port number 1-65535` };
  return { value: port };
}

/** An absolute URL path (`/mcp`); `fallback` when the key is absent. */
export function readPath(key: string, value: string | undefined, fallback: string): LabelValue<string> {
  if (value === undefined) return { value: fallback };
  const path = value.trim();
  // A path only: no scheme, authority, query, fragment or whitespace that would change the URL.
  if (!path.startsWith("/") || path.startsWith("//") || /[\s?#]/.test(path))
    return { problem: `${key} ${quote(value)} must be an absolute path such as /mcp` };
  return { value: path };
}

/** The server name: required, and a valid server id. */
export function readName(key: string, value: string | undefined): LabelValue<string> {
  if (value === undefined || value.trim() === "") return { problem: `${key} is required` };
  const name = value.trim();
  const problem = nameProblem(name);
  return problem ? { problem: `${key} ${quote(name)} ${problem}` } : { value: name };
}

/** The optional group: absent, or a valid group id (groups share the server id rule). */
export function readGroup(key: string, value: string | undefined): LabelValue<string | undefined> {
  if (value === undefined || value.trim() === "") return { value: undefined };
  const group = value.trim();
  const problem = nameProblem(group);
  return problem ? { problem: `${key} ${quote(group)} ${problem}` } : { value: group };
}

/** `http://host:port/path`, with an IPv6 address in brackets. */
export function httpEndpoint(host: string, port: number, path: string): string {
  const authority = host.includes(":") ? `[${host}]` : host;
  return `http://${authority}:${port}${path}`;
}
