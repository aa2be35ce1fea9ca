import Docker from "dockerode";

/**
 * Where the container engine's API listens: a unix socket, or a plain-HTTP TCP address
 * (`DOCKER_HOST=tcp://host:port`). TLS to a remote engine is not supported.
 */
export type DockerEndpoint =
  | { readonly socketPath: string }
  | { readonly host: string; readonly port: number };

/** Which engine serves the API; only used to name it in messages. */
export type ContainerRuntime = "docker" | "podman";

/**
 * A dockerode client for exactly `endpoint`.
 *
 * dockerode fills the options it is not given from `DOCKER_HOST`, `DOCKER_TLS_VERIFY`,
 * `DOCKER_CERT_PATH` and `DOCKER_CLIENT_TIMEOUT`, and a `host` it read that way would win over our
 * `socketPath`. Every one of those options is therefore passed explicitly: the endpoint the
 * configuration loader resolved is the only one used. A client timeout is left unset on purpose:
 * `attach` and `wait` are long-lived requests; each short request carries its own abort signal.
 *
 * Throws when dockerode rejects the process environment anyway (a malformed `DOCKER_HOST`).
 */
export function createEngineClient(endpoint: DockerEndpoint): Docker {
  const fixed = {
    protocol: "http" as const,
    timeout: undefined,
    version: undefined,
    ca: undefined,
    cert: undefined,
    key: undefined,
  };
  if ("socketPath" in endpoint) {
    return new Docker({ ...fixed, socketPath: endpoint.socketPath, host: undefined, port: undefined });
  }
  return new Docker({ ...fixed, host: endpoint.host, port: endpoint.port });
}

/** Error codes of a failed connection to the engine (socket missing, refused, not permitted, ...). */
const UNREACHABLE_CODES = new Set([
  "ENOENT",
  "ECONNREFUSED",
  "EACCES",
  "EPERM",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/** The HTTP status of an engine answer dockerode turned into an error, if it was one. */
export function engineStatus(error: unknown): number | undefined {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === "number" ? status : undefined;
}

/** Whether the error is an aborted request (our deadline or signal). */
export function isAbort(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  return name === "AbortError" || name === "TimeoutError";
}

/** Longest piece of an engine message repeated to a caller. */
const MAX_ENGINE_MESSAGE_CHARS = 300;

/**
 * A message about an engine failure that is safe to show: the engine's own `message` for an HTTP
 * error (it names the image, network or volume at fault), the error code for a connection failure.
 * Never a socket path, an address or a stack.
 */
export function describeEngineError(error: unknown, runtime: ContainerRuntime): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && UNREACHABLE_CODES.has(code))
    return `cannot reach the ${runtime} engine (${code})`;
  if (isAbort(error)) return `the ${runtime} engine did not answer in time`;
  const status = engineStatus(error);
  if (status !== undefined) {
    const json = (error as { json?: unknown }).json;
    const message = (json as { message?: unknown } | null)?.message;
    if (typeof message === "string" && message.trim() !== "") return firstLine(message);
    return `the ${runtime} engine answered HTTP ${status}`;
  }
  return `unexpected failure talking to the ${runtime} engine`;
}

function firstLine(text: string): string {
  const line = (text.split("\n", 1)[0] ?? "").trim();
  return line.length > MAX_ENGINE_MESSAGE_CHARS ? `${line.slice(0, MAX_ENGINE_MESSAGE_CHARS)}...` : line;
}

/** An Error whose message was composed here and is safe to show as it is. */
export class DockerFailure extends Error {
  override name = "DockerFailure";
}
