import { z } from "zod";
import { defineOperation } from "../../operation.js";
import { clampedInteger } from "../clamped-integer.js";
import { choiceFilter, textFilter, timeFilter } from "./query-fields.js";

/** A page of records: 100 by default, at most 1,000 (a console's page, not an export). */
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1_000;

/** What the audit recorder writes as a tool invocation's outcome (`mcp.tool.status`). */
const OUTCOMES = ["success", "failure", "denied"] as const;

/**
 * `GET /observability/audit` (an earlier revision's route): the audit trail, newest first, one
 * page at a time. The trail holds a record per tool invocation (`tool_invocation`: who called
 * which tool of which server or group, and whether it succeeded, failed or was refused), written
 * off the call path within about 100 ms of the call. Filters combine with AND; `cursor` is the
 * `next_cursor` of the page before, so a page never repeats or skips a record stored when the first
 * page was read. A caller confined to a tenant (a tenant-scoped `audit:read`) sees only records of
 * that tenant; records without a tenant are withheld from it.
 */
export const auditRecords = defineOperation({
  name: "audit-records",
  kind: "query",
  summary: "Audit records of tool invocations, newest first, filtered and paged.",
  permissions: ["audit:read"],
  tenantAware: true,
  input: z.strictObject({
    mcp_server_id: textFilter(),
    tool_name: textFilter(),
    principal_id: textFilter(),
    action: textFilter(),
    outcome: choiceFilter(OUTCOMES),
    since: timeFilter(),
    until: timeFilter(),
    limit: clampedInteger(DEFAULT_LIMIT, 1, MAX_LIMIT),
    cursor: textFilter(),
  }),
  async run({ repositories }, input, ctx) {
    const records = await repositories.audit.query({
      ...(input.mcp_server_id !== undefined && { target: input.mcp_server_id }),
      ...(input.tool_name !== undefined && { tool: input.tool_name }),
      ...(input.principal_id !== undefined && { actor: input.principal_id }),
      ...(input.action !== undefined && { action: input.action }),
      ...(input.outcome !== undefined && { outcome: input.outcome }),
      ...(input.since !== undefined && { from: input.since }),
      ...(input.until !== undefined && { to: input.until }),
      ...(input.cursor !== undefined && { after: input.cursor }),
      ...(ctx.confinedTo !== undefined && { tenant_id: ctx.confinedTo }),
      limit: input.limit,
    });
    // A full page may have a next one; a short page is the last.
    const next_cursor = records.length === input.limit ? (records.at(-1)?.id ?? null) : null;
    return { records, count: records.length, next_cursor };
  },
});
