import { randomBytes, randomUUID } from "node:crypto";
import type { IdGenerator } from "../../app/ports/id-generator.js";

/** Hex digits of a UUID v7's millisecond timestamp (48 bits). */
const TIME_DIGITS = 12;

/**
 * `IdGenerator` on node:crypto's CSPRNG: `uuid()` and `hex()` are unpredictable, so they may
 * double as unguessable handles; `timeOrderedUuid()` tells its creation time and is meant for
 * records, not handles. Not guaranteed: any ordering between ids made in the same millisecond.
 */
export class NodeIdGenerator implements IdGenerator {
  uuid(): string {
    return randomUUID();
  }

  timeOrderedUuid(): string {
    // A v4 UUID (pooled randomness, its variant bits set) with the time over its first 48 bits and
    // its version digit made 7: "tttttttt-tttt-7xxx-vxxx-xxxxxxxxxxxx".
    const random = randomUUID();
    const time = Date.now().toString(16).padStart(TIME_DIGITS, "0");
    return `${time.slice(0, 8)}-${time.slice(8)}-7${random.slice(15)}`;
  }

  hex(bytes: number): string {
    if (!Number.isInteger(bytes) || bytes < 0) throw new RangeError("bytes must be a non-negative integer");
    return randomBytes(bytes).toString("hex");
  }
}
