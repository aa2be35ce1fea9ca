import { GatewayError } from "../../domain/errors.js";
import { jsonByteLength } from "../../domain/policy/payload-size.js";
import type { CallGate } from "../routing/call-gate.js";
import type { PayloadSizeValidator } from "./governance.js";

/**
 * `interceptors.validators` (spec 2 §2), in order: a `payload_size` validator denies a call whose
 * JSON-encoded arguments are larger than `max_bytes` with `ValidatorDenied`, and denies one whose
 * size cannot be measured (fails closed). The validators are read at each call, so a reload applies.
 */
export function payloadSizeGate(validators: () => readonly PayloadSizeValidator[]): CallGate {
  return {
    name: "payload_size",
    async check({ args, tool }) {
      const list = validators();
      if (list.length === 0) return;
      const size = jsonByteLength(args);
      for (const validator of list) {
        if (size === null) {
          throw new GatewayError("ValidatorDenied", `The payload of '${tool}' could not be measured`, {
            validator: validator.type,
            max_bytes: validator.max_bytes,
          });
        }
        if (size > validator.max_bytes) {
          throw new GatewayError(
            "ValidatorDenied",
            `The payload of '${tool}' is ${size} bytes, over the limit of ${validator.max_bytes} bytes`,
            { validator: validator.type, max_bytes: validator.max_bytes, size_bytes: size },
          );
        }
      }
    },
  };
}
