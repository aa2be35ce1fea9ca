import { z } from "zod";

/**
 * The input of a configuration operation with `config_path` read only to be refused (spec 1
 * "Configuration": a body containing `config_path` answers 422; the operations act on the file the
 * gateway was started with, or the one `MCP_CONFIG` names). Not advertised: callers see `schema`.
 */
export function refusingConfigPath<T extends z.ZodRawShape>(schema: z.ZodObject<T>) {
  return schema.extend({ config_path: z.unknown().optional() }).superRefine((input, ctx) => {
    if (Object.hasOwn(input, "config_path"))
      ctx.addIssue({
        code: "custom",
        path: ["config_path"],
        message: "is not accepted: the configuration operations act on the gateway's own file",
      });
  });
}
