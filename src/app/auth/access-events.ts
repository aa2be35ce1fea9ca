import type { Principal } from "../context.js";
import type { EventBus } from "../event-bus.js";
import type { Clock } from "../ports/clock.js";
import type { AuthMethod } from "./auth-method.js";

/**
 * How long a success or a grant stays announced: within it, the same principal (with the same
 * permissions) succeeds again without another event. Every request succeeding would otherwise put
 * two events in the log per request; refusals are what an operator watches, and are all published.
 */
export const OUTCOME_SAMPLE_MS = 10_000;

/** Announced outcomes remembered at most; past it the memory starts again empty. */
const MAX_REMEMBERED = 10_000;

/**
 * Publishes the authentication and authorization outcomes of spec 2 §6: `AuthenticationFailed`
 * and `AuthorizationDenied` every time, `AuthenticationSucceeded` and `AuthorizationGranted` at most
 * once per principal (and permission set) per {@link OUTCOME_SAMPLE_MS} on this replica. Events
 * carry who and what, never a credential.
 */
export class AccessEvents {
  private readonly announced = new Map<string, number>();

  constructor(private readonly deps: { bus: EventBus; clock: Clock }) {}

  authenticationFailed(method: AuthMethod, reason: string, clientAddress: string): void {
    this.deps.bus.publish([
      { type: "AuthenticationFailed", auth_method: method, reason, client_address: clientAddress },
    ]);
  }

  authenticationSucceeded(principal: Principal): void {
    if (principal.type !== "api_key" && principal.type !== "jwt") return;
    if (!this.due(`n\u0000${principal.type}\u0000${principal.id}`)) return;
    this.deps.bus.publish([
      {
        type: "AuthenticationSucceeded",
        principal_id: principal.id,
        auth_method: principal.type,
        tenant_id: principal.tenant_id,
      },
    ]);
  }

  authorization(
    principal: Principal,
    permissions: readonly string[],
    allowed: boolean,
    resource: string,
  ): void {
    if (allowed && !this.due(`z\u0000${principal.id}\u0000${resource}\u0000${permissions.join(",")}`)) return;
    this.deps.bus.publish([
      {
        type: allowed ? "AuthorizationGranted" : "AuthorizationDenied",
        principal_id: principal.id,
        permissions: [...permissions],
        tenant_id: principal.tenant_id,
        resource,
      },
    ]);
  }

  /** Whether `key` was not announced within the sample window; marks it announced now if so. */
  private due(key: string): boolean {
    const now = this.deps.clock.monotonic();
    const last = this.announced.get(key);
    if (last !== undefined && now - last < OUTCOME_SAMPLE_MS) return false;
    if (this.announced.size >= MAX_REMEMBERED) this.announced.clear();
    this.announced.set(key, now);
    return true;
  }
}
