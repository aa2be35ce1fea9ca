import type { ContinuationOwner } from "../../app/ports/continuation-store.js";

/** One comparable string per owner; JSON keeps tenant and principal apart whatever they contain. */
export function ownerKey(owner: ContinuationOwner): string {
  return JSON.stringify([owner.tenant_id, owner.principal_id]);
}
