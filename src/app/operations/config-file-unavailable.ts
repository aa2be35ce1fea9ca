import { configFileUnavailable, type GatewayError } from "../../domain/errors.js";

/**
 * The answer of export, backup and diff on a gateway built without a configuration file (embedded
 * uses and tests): there is no running document to show nor a file to act on.
 */
export function notStartedFromFile(): GatewayError {
  return configFileUnavailable("the gateway was not started from a configuration file");
}
