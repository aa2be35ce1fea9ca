import { z } from "zod";
import { isValidPattern } from "../../../domain/policy/fnmatch.js";
import type { ToolAccessScope } from "../../ports/tool-access-policy-repository.js";
import { fieldError } from "./fields.js";

const SCOPES: readonly ToolAccessScope[] = ["provider", "group", "member"];

/**
 * The path's `scope`, checked in `run` (not by the schema) because spec 2 §7 gives an unknown policy
 * scope 400 `ValidationError`, not the schema's 422.
 */
export function policyScope(scope: string): ToolAccessScope {
  if ((SCOPES as readonly string[]).includes(scope)) return scope as ToolAccessScope;
  throw fieldError("scope", `must be one of ${SCOPES.join(", ")} (got '${scope}')`, 400);
}

const PATTERN_RULE = "must be a non-empty fnmatch pattern of at most 256 characters";
/** A policy lists globs matched on every call; the bounds keep one policy small. */
const PATTERNS_MAX = 1000;

/** `allow_list` / `deny_list`: lists of fnmatch globs; absent is empty. */
export function patternList() {
  return z
    .array(
      z
        .string({ error: PATTERN_RULE })
        .min(1, { error: PATTERN_RULE })
        .max(256, { error: PATTERN_RULE })
        .refine(isValidPattern, { error: "is not a valid fnmatch pattern" }),
      { error: "must be a list of fnmatch patterns" },
    )
    .max(PATTERNS_MAX, { error: `must list at most ${PATTERNS_MAX} patterns` })
    .default(() => []);
}

export const TARGET_RULE = "must be a non-empty string of at most 256 characters";
