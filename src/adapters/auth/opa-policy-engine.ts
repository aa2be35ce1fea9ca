import type { Logger } from "../../app/ports/logger.js";
import type { PolicyEngine, PolicyQuery } from "../../app/ports/policy-engine.js";
import { readBodyWithin } from "../net/read-body.js";

/** `auth.opa` of the configuration. */
export interface OpaSettings {
  readonly enabled: boolean;
  /** Base URL of the engine, e.g. `http://localhost:8181`. */
  readonly url: string;
  /** Path of the decision below the base URL, e.g. `v1/data/mcp/authz/allow`. */
  readonly policy_path: string;
  /** Seconds one decision may take, connection and answer included. */
  readonly timeout: number;
}

/**
 * Largest decision body read. OPA answers `{"result": true}` plus perhaps a decision id; anything
 * far larger is not a decision, and reading it must not hold memory.
 */
const MAX_RESPONSE_BYTES = 64 * 1024;

/** While the engine keeps failing, one warning per this interval (with a count), not one per request. */
const FAILURE_LOG_INTERVAL_MS = 10_000;

type Fetch = typeof fetch;

/**
 * The external policy engine over OPA's data API (decisions "Identity"): `POST {url}/{policy_path}`
 * with `{"input": {principal: {id, type, tenant_id, roles}, permission, resource_type, action,
 * resource_id, route}}`; only a JSON answer whose `result` is exactly `true` allows.
 *
 * Guaranteed: deny on anything else, fail closed: unreachable engine, timeout (`auth.opa.timeout`),
 * redirect, non-2xx status, a body that is not JSON or is larger than 64 KiB, `result` absent or
 * not the boolean true. Logs never carry the URL's credentials or query, nor the input document.
 * Not guaranteed: any caching of decisions (every call asks the engine).
 */
export class OpaPolicyEngine implements PolicyEngine {
  private readonly endpoint: string;
  private readonly authorization: string | null;
  /** The endpoint without credentials or query, safe to log. */
  private readonly endpointForLogs: string;
  private lastFailureLog = Number.NEGATIVE_INFINITY;
  private suppressedFailures = 0;

  constructor(
    private readonly settings: Pick<OpaSettings, "url" | "policy_path" | "timeout">,
    private readonly logger: Logger,
    private readonly fetchImpl: Fetch = fetch,
    private readonly monotonic: () => number = () => performance.now(),
  ) {
    const target = decisionUrl(settings.url, settings.policy_path);
    this.endpoint = target.url;
    this.authorization = target.authorization;
    this.endpointForLogs = redact(this.endpoint);
  }

  async allows(query: PolicyQuery): Promise<boolean> {
    const started = this.monotonic();
    try {
      const response = await this.fetchImpl(this.endpoint, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json",
          ...(this.authorization !== null && { authorization: this.authorization }),
        },
        body: JSON.stringify({ input: query }),
        // A redirect could carry the input document elsewhere; the engine never needs one.
        redirect: "manual",
        signal: AbortSignal.timeout(Math.round(this.settings.timeout * 1000)),
      });
      if (response.status < 200 || response.status > 299) {
        await response.body?.cancel().catch(() => undefined);
        return this.failed(`the engine answered HTTP ${response.status}`, started);
      }
      const text = await readBodyWithin(response, MAX_RESPONSE_BYTES);
      if (text === null) return this.failed(`the answer exceeds ${MAX_RESPONSE_BYTES} bytes`, started);
      let document: unknown;
      try {
        document = JSON.parse(text);
      } catch {
        return this.failed("the answer is not JSON", started);
      }
      const allowed =
        typeof document === "object" &&
        document !== null &&
        (document as { result?: unknown }).result === true;
      if (!allowed) {
        this.logger.debug(
          { permission: query.permission, principal_type: query.principal.type },
          "policy engine denied",
        );
      }
      return allowed;
    } catch (error) {
      const reason =
        error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")
          ? `no answer within ${this.settings.timeout} s`
          : "the engine is unreachable";
      return this.failed(reason, started);
    }
  }

  private failed(reason: string, started: number): false {
    const now = this.monotonic();
    if (now - this.lastFailureLog >= FAILURE_LOG_INTERVAL_MS) {
      this.logger.warn(
        {
          endpoint: this.endpointForLogs,
          reason,
          elapsed_ms: Math.round(now - started),
          ...(this.suppressedFailures > 0 && { failures_not_logged: this.suppressedFailures }),
        },
        "policy engine failed; denied (fail closed)",
      );
      this.lastFailureLog = now;
      this.suppressedFailures = 0;
    } else {
      this.suppressedFailures += 1;
    }
    return false;
  }
}

/**
 * `{url}/{policy_path}` with exactly one slash between them (a query of `url` stays at the end),
 * and the URL's credentials apart: fetch refuses URLs that carry them, so they are sent as HTTP
 * Basic authorization instead.
 */
export function decisionUrl(url: string, policyPath: string): { url: string; authorization: string | null } {
  const parsed = new URL(url);
  parsed.pathname = `${parsed.pathname.replace(/\/+$/, "")}/${policyPath.replace(/^\/+/, "")}`;
  const user = decodeURIComponent(parsed.username);
  const password = decodeURIComponent(parsed.password);
  parsed.username = "";
  parsed.password = "";
  const authorization =
    user || password ? `Basic ${Buffer.from(`${user}:${password}`, "utf8").toString("base64")}` : null;
  return { url: parsed.toString(), authorization };
}

function redact(text: string): string {
  try {
    const url = new URL(text);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return "(invalid URL)";
  }
}

/**
 * The policy engine of `auth.opa`, or null when it is disabled: the `policyEngine` dependency of
 * the Authorizer.
 */
export function createOpaPolicyEngine(settings: OpaSettings, logger: Logger): PolicyEngine | null {
  return settings.enabled ? new OpaPolicyEngine(settings, logger) : null;
}
