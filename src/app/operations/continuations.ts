import { z } from "zod";
import { defineOperation } from "../operation.js";

/** Decisions "gateway_call and continuations": default and largest slice of a continuation. */
const DEFAULT_LIMIT = 500_000;
const MAX_LIMIT = 2_000_000;

const NOT_FOUND = "continuation not found (expired, deleted, or never created)";

/**
 * Continuations hold the rest of a truncated result. Truncation is off in this release
 * (`truncation.enabled` is not served yet), so no continuation exists: lookups answer not found.
 */
export const fetchContinuation = defineOperation({
  name: "fetch-continuation",
  kind: "query",
  summary: "Read a slice of a truncated result kept under a continuation id.",
  permissions: ["tool:invoke"],
  input: z.object({
    continuation_id: z.string().min(1).describe("cont_<batch_id>_<call_index>_<8 hex>"),
    offset: z.number().int().min(0).default(0).describe("First byte of the slice"),
    limit: z
      .number()
      .int()
      .min(1)
      .max(MAX_LIMIT)
      .default(DEFAULT_LIMIT)
      .describe("Bytes in the slice (max 2000000)"),
  }),
  async run() {
    return { found: false, error: NOT_FOUND };
  },
});

export const deleteContinuation = defineOperation({
  name: "delete-continuation",
  kind: "command",
  summary: "Drop a continuation before it expires.",
  permissions: ["tool:invoke"],
  input: z.object({ continuation_id: z.string().min(1).describe("The continuation to drop") }),
  async run(_services, input) {
    return { deleted: false, continuation_id: input.continuation_id, error: NOT_FOUND };
  },
});
