import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from "@modelcontextprotocol/server";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/server/validators/ajv";

/**
 * The JSON Schema validator of one MCP server, built the first time it validates. The SDK's `Server`
 * otherwise builds an Ajv instance with its formats in its constructor, whatever it will validate:
 * the costliest part of making a server, which the gateway does for every session and for every
 * stateless request. It validates only a client's answer to an elicitation the server itself asks
 * for (`elicitInput`), which the gateway's servers never do (they relay an upstream's): so none is
 * built, and should one be needed, each server still gets its own, as before.
 */
export function lazySchemaValidator(): jsonSchemaValidator {
  let ajv: AjvJsonSchemaValidator | undefined;
  return {
    getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
      ajv ??= new AjvJsonSchemaValidator();
      return ajv.getValidator<T>(schema);
    },
  };
}
