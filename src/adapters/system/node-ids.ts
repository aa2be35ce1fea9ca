import { randomBytes, randomUUID } from "node:crypto";
import type { IdGenerator } from "../../app/ports/id-generator.js";

/**
 * `IdGenerator` on node:crypto's CSPRNG: ids are unpredictable, so they may double as unguessable
 * handles. Not guaranteed: any ordering between ids.
 */
export class NodeIdGenerator implements IdGenerator {
  uuid(): string {
    return randomUUID();
  }

  hex(bytes: number): string {
    if (!Number.isInteger(bytes) || bytes < 0) throw new RangeError("bytes must be a non-negative integer");
    return randomBytes(bytes).toString("hex");
  }
}
