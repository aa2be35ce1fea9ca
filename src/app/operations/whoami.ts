import { z } from "zod";
import { defineOperation } from "../operation.js";

export const whoami = defineOperation({
  name: "whoami",
  kind: "query",
  summary: "Who the gateway takes the caller to be.",
  permissions: [],
  input: z.object({}),
  async run(_services, _input, ctx) {
    if (!ctx.authenticated) return { authenticated: false, principal: null };
    return { authenticated: true, principal: { id: ctx.principal.id, type: ctx.principal.type } };
  },
});
