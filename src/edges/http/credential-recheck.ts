/**
 * How often a long-lived connection (the front door's GET streams, the event WebSocket) is judged
 * again from the request that opened it: a revoked or expired credential, or a lost grant, ends
 * it within this time. Spec 2 §8 asks the streams to end at revocation and expiry; 15 s is the
 * streams' ping interval too.
 */
export const CREDENTIAL_RECHECK_MS = 15_000;
