import { z } from "zod";
import { bool, intBetween, oneOf, rule, section } from "./primitives.js";

/** Paths the gateway serves itself, which the console may not take. */
const RESERVED_PREFIXES = ["/api", "/mcp", "/health", "/metrics", "/.well-known", "/hooks"];
const UI_PATH_RULE =
  "must be an absolute path of letters, digits, '-', '_' and '/' (such as /ui), not / and not under /api, /mcp, /health, /metrics, /.well-known or /hooks";

/** Whether `path` may serve the console: `/ui`, `/console/airlock`; never a path the gateway serves. */
function usableUiPath(path: string): boolean {
  if (!/^\/[A-Za-z0-9_\-/]*[A-Za-z0-9_-]$/.test(path) || path.includes("//")) return false;
  return !RESERVED_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

/**
 * `ui`: the operator console (docs/console.md). Served over HTTP only; `enabled: false` answers
 * 404 at its path. A console session (the cookie an API key is exchanged for) lasts
 * `session_ttl_s` from sign-in, at most a day; `secure_cookie: auto` marks the cookie `Secure`
 * when the request came over HTTPS (directly or, from a trusted proxy, `X-Forwarded-Proto`).
 */
export const uiSchema = section({
  enabled: bool().default(true),
  path: z.string(rule(UI_PATH_RULE)).refine(usableUiPath, { error: UI_PATH_RULE }).default("/ui"),
  session_ttl_s: intBetween(60, 86_400).default(3600),
  secure_cookie: z.union([z.boolean(), oneOf(["auto"])], rule("must be true, false or auto")).default("auto"),
});

export type UiConfig = z.output<typeof uiSchema>;
