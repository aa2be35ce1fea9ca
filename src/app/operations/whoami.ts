import { z } from "zod";
import { defineOperation } from "../operation.js";

export const whoami = defineOperation({
  name: "whoami",
  kind: "query",
  summary: "Who the gateway takes the caller to be.",
  permissions: [],
  input: z.strictObject({}),
  async run(_services, _input, ctx) {
    // With authentication off (or an anonymous caller allowed in) the caller is the anonymous
    // principal, the actor changes are recorded under (spec 1): shown as such, not as null.
    return {
      authenticated: ctx.authenticated,
      principal: { id: ctx.principal.id, type: ctx.principal.type },
    };
  },
});
