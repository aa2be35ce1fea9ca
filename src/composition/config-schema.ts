import { configJsonSchema } from "../config/json-schema.js";

/**
 * `airlock config schema`: the JSON Schema of the configuration file on stdout (the same document
 * as docs/config.schema.json). With `references`, every constrained scalar may also be a `${NAME}`
 * reference, as in the Helm chart's configuration template.
 */
export function runConfigSchema(options: { readonly references?: boolean } = {}): number {
  process.stdout.write(`${JSON.stringify(configJsonSchema(options), null, 2)}\n`);
  return 0;
}
