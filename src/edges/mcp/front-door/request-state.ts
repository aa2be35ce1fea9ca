import { createHash, createHmac, timingSafeEqual } from "node:crypto";

/**
 * What the `requestState` of an `input_required` result carries back to the gateway, which any
 * replica can read: the request it belongs to (who asked, which method of which name, with which
 * arguments), the held request on the replica that issued it, and every answer given so far, by
 * key, so that a replica that does not hold the request can run it again and answer the upstream's
 * requests from them.
 */
export interface RequestStatePayload {
  /** The held request's id on the replica that issued the state. */
  readonly hold: string;
  /** The principal that asked; a retry by anyone else is refused. */
  readonly principal: string;
  readonly method: string;
  /** The tool or prompt name, or the resource URI. */
  readonly name: string;
  /** SHA-256 of the arguments as sent (hex). */
  readonly args: string;
  /** Answers given in earlier rounds, by input key. */
  readonly answers: Readonly<Record<string, unknown>>;
  /** Expiry, in milliseconds since the epoch. */
  readonly expires: number;
}

/** How long a `requestState` is honoured after it was issued. */
export const REQUEST_STATE_TTL_MS = 10 * 60 * 1000;

const VERSION = "v1";

/**
 * Signs and verifies `requestState` with HMAC-SHA256 under a key every replica shares (kept in the
 * shared store). The state is `v1.<base64url JSON>.<base64url MAC>`: readable by the client, but
 * any change to it fails verification. Not encrypted: it holds nothing the client did not send or
 * was not shown.
 */
export class RequestStateCodec {
  private key: Promise<Buffer> | undefined;

  constructor(private readonly obtainKey: () => Promise<Buffer>) {}

  async sign(payload: RequestStatePayload): Promise<string> {
    const body = Buffer.from(JSON.stringify(payload), "utf8").toString("base64url");
    return `${VERSION}.${body}.${await this.mac(body)}`;
  }

  /** The payload of a state this gateway signed and that has not expired; a reason otherwise. */
  async verify(state: string, now: number): Promise<RequestStatePayload | { refused: string }> {
    const [version, body, mac, ...rest] = state.split(".");
    if (version !== VERSION || !body || !mac || rest.length > 0)
      return { refused: "requestState is malformed" };
    const expected = Buffer.from(await this.mac(body), "base64url");
    const given = Buffer.from(mac, "base64url");
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      return { refused: "requestState failed its integrity check" };
    let payload: RequestStatePayload;
    try {
      payload = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as RequestStatePayload;
    } catch {
      return { refused: "requestState is malformed" };
    }
    if (typeof payload.expires !== "number" || payload.expires < now)
      return { refused: "requestState has expired" };
    return payload;
  }

  private async mac(body: string): Promise<string> {
    this.key ??= this.obtainKey();
    const key = await this.key.catch((error: unknown) => {
      this.key = undefined;
      throw error;
    });
    return createHmac("sha256", key).update(body, "utf8").digest("base64url");
  }
}

/** The digest a state binds the arguments by: SHA-256 of their JSON (hex). */
export function argumentsDigest(args: unknown): string {
  return createHash("sha256")
    .update(JSON.stringify(args ?? {}), "utf8")
    .digest("hex");
}
