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

/**
 * JSON that the gateway signs with HMAC-SHA256 under a key every replica shares (kept in the shared
 * store), as `<kind>.<base64url JSON>.<base64url MAC>`: readable by whoever holds it, but any change
 * fails verification. The MAC covers the kind too, so a token of one kind never passes for another.
 * Not encrypted: what it carries must be fit to show its holder.
 */
export class SignedJson<T> {
  private key: Promise<Buffer> | undefined;

  constructor(
    /** What the token is, as named in its refusals and first in its text (`requestState`). */
    private readonly kind: string,
    private readonly obtainKey: () => Promise<Buffer>,
  ) {}

  async sign(payload: T): Promise<string> {
    const body = Buffer.from(JSON.stringify(payload), "utf8").toString("base64url");
    return `${this.kind}.${body}.${await this.mac(body)}`;
  }

  /** The payload of a token this gateway signed; a reason otherwise. */
  async open(token: string): Promise<T | { refused: string }> {
    const [kind, body, mac, ...rest] = token.split(".");
    if (kind !== this.kind || !body || !mac || rest.length > 0)
      return { refused: `${this.kind} is malformed` };
    const expected = Buffer.from(await this.mac(body), "base64url");
    const given = Buffer.from(mac, "base64url");
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      return { refused: `${this.kind} failed its integrity check` };
    try {
      return JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as T;
    } catch {
      return { refused: `${this.kind} is malformed` };
    }
  }

  private async mac(body: string): Promise<string> {
    this.key ??= this.obtainKey();
    const key = await this.key.catch((error: unknown) => {
      this.key = undefined;
      throw error;
    });
    return createHmac("sha256", key).update(`${this.kind}.${body}`, "utf8").digest("base64url");
  }
}

/** Signs and verifies `requestState` ({@link SignedJson}), honoured until it expires. */
export class RequestStateCodec {
  private readonly signed: SignedJson<RequestStatePayload>;

  constructor(obtainKey: () => Promise<Buffer>) {
    this.signed = new SignedJson("requestState", obtainKey);
  }

  sign(payload: RequestStatePayload): Promise<string> {
    return this.signed.sign(payload);
  }

  /** The payload of a state this gateway signed and that has not expired; a reason otherwise. */
  async verify(state: string, now: number): Promise<RequestStatePayload | { refused: string }> {
    const payload = await this.signed.open(state);
    if ("refused" in payload) return payload;
    if (typeof payload.expires !== "number" || payload.expires < now)
      return { refused: "requestState has expired" };
    return payload;
  }
}

/** The digest a state binds the arguments by: SHA-256 of their JSON (hex). */
export function argumentsDigest(args: unknown): string {
  return createHash("sha256")
    .update(JSON.stringify(args ?? {}), "utf8")
    .digest("hex");
}
