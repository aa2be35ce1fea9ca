import { RequestRejected } from "../../../domain/errors.js";

/** Spec 1 "Session": 1-128 letters, digits, dashes or underscores. */
const SESSION_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** The path's session id; an invalid one answers 400 `invalid_session_id` (spec 1: "invalid id 400"). */
export function sessionId(id: string): string {
  if (SESSION_ID.test(id)) return id;
  throw new RequestRejected(
    400,
    "invalid_session_id",
    "session_id must be 1-128 characters: letters, digits, dashes or underscores",
  );
}
