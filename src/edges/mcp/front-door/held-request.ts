import { randomUUID } from "node:crypto";
import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import type { AskClient } from "../../../app/ports/upstream.js";

/** A request an upstream makes of its client, as an `input_required` result lists it. */
export interface InputRequest {
  readonly method: string;
  readonly params?: Record<string, unknown>;
}

export type { AskClient };

/** What a round of a held request ends with. */
export type RoundOutcome =
  | { readonly kind: "input"; readonly requests: Readonly<Record<string, InputRequest>> }
  | { readonly kind: "done"; readonly result: Record<string, unknown> }
  | { readonly kind: "failed"; readonly error: unknown }
  /** The upstream asked for what the client did not declare: the capabilities it lacks. */
  | { readonly kind: "missing"; readonly capabilities: readonly string[] };

/**
 * The requests an upstream makes of its client, the capability each needs, and the prefix of the
 * input key the gateway names it by (`elicitation_1`, `sampling_2`, ...): a request of a 2025-11-25
 * upstream carries no key of its own, so they are numbered in the order they come; one of a
 * 2026-07-28 upstream keeps the key the upstream named it by.
 */
export const INPUT_KINDS: Readonly<
  Record<string, { readonly capability: "elicitation" | "sampling" | "roots"; readonly prefix: string }>
> = {
  "elicitation/create": { capability: "elicitation", prefix: "elicitation" },
  "sampling/createMessage": { capability: "sampling", prefix: "sampling" },
  "roots/list": { capability: "roots", prefix: "roots" },
};

/**
 * How long a round stays open after the upstream's first request for input, for the others it
 * sends at the same time (a server asks for several inputs at once): they are answered together.
 */
const ROUND_SETTLE_MS = 50;

interface Pending extends InputRequest {
  resolve(result: Record<string, unknown>): void;
}

/**
 * One relayed request of a stateless client whose upstream asks the client for input (elicitation,
 * sampling, roots) on the way. The request runs on; each round of what the upstream asks is
 * answered to the client as `input_required`, and the client's retry hands its answers to the
 * upstream's waiting requests. An upstream request whose key already has an answer (given in an
 * earlier round, or carried by the client's `requestState` to a replica that runs the request
 * again) is answered at once.
 */
export class HeldRequest {
  private heldId: string | undefined;
  private ordinal = 0;
  /** The upstream's requests waiting for the client's answers, by input key (made when first needed). */
  private pending: Map<string, Pending> | undefined;
  /** The capabilities the client lacks for what the upstream asked (made when first needed). */
  private missing: Set<string> | undefined;
  private readonly controller = new AbortController();
  private settled: RoundOutcome | undefined;
  private onSettled: () => void = () => {};
  private wake: (() => void) | undefined;

  /**
   * `declared`: the client capabilities of the request that started it (none declared: the client
   * can be asked nothing). `answers`: answers known before it starts, by key.
   */
  constructor(
    readonly principal: string,
    private readonly declared: Readonly<Record<string, unknown>> | undefined,
    readonly answers: Record<string, unknown>,
  ) {}

  /**
   * The id a `requestState` names it by: made when first asked for, which is when a round asks the
   * client for input (most requests never do, and a random id is not free).
   */
  get id(): string {
    this.heldId ??= randomUUID();
    return this.heldId;
  }

  /** Whether it has been given an id (see {@link id}). */
  get named(): boolean {
    return this.heldId !== undefined;
  }

  /** Whether the request ended (its result or failure is known). */
  get ended(): boolean {
    return this.settled !== undefined;
  }

  /** Starts `run`, which asks the client through `ask`; `onSettled` runs once it ended. */
  start(
    run: (ask: AskClient, signal: AbortSignal) => Promise<Record<string, unknown>>,
    onSettled: () => void,
  ) {
    this.onSettled = onSettled;
    void run(this.ask, this.controller.signal).then(
      (result) => this.settle({ kind: "done", result }),
      (error: unknown) => this.settle({ kind: "failed", error }),
    );
  }

  /** Hands the client's answers to the upstream requests waiting for them; other keys are ignored. */
  answer(responses: Readonly<Record<string, unknown>>): void {
    const pending = this.pending;
    if (!pending) return;
    for (const [key, response] of Object.entries(responses)) {
      const waiting = pending.get(key);
      if (!waiting) continue;
      pending.delete(key);
      this.answers[key] = response;
      waiting.resolve(response as Record<string, unknown>);
    }
  }

  /**
   * The end of this round: the upstream's next requests for input (once none came for
   * {@link ROUND_SETTLE_MS}), the request's result or failure, or the capabilities the client
   * lacks for what the upstream asked (the request is then stopped).
   */
  async next(): Promise<RoundOutcome> {
    for (;;) {
      if (this.missing) {
        this.controller.abort(new Error("the client cannot answer what the upstream asked"));
        return { kind: "missing", capabilities: [...this.missing] };
      }
      if (this.settled) return this.settled;
      const pending = this.pending;
      if (pending && pending.size > 0) {
        const seen = this.ordinal;
        await new Promise((resolve) => setTimeout(resolve, ROUND_SETTLE_MS));
        if (this.ordinal !== seen || this.missing || this.settled) continue;
        const requests: Record<string, InputRequest> = {};
        for (const [key, { method, params }] of pending)
          requests[key] = params === undefined ? { method } : { method, params };
        return { kind: "input", requests };
      }
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }

  /** Stops the request (nobody will answer it). */
  abort(reason: unknown): void {
    this.controller.abort(reason);
  }

  private readonly ask: AskClient = (method, params, signal, named) => {
    const kind = INPUT_KINDS[method];
    if (!kind)
      return Promise.reject(
        new ProtocolError(ProtocolErrorCode.MethodNotFound, `Method not found: ${method}`),
      );
    const ordinal = ++this.ordinal;
    const key = named ?? `${kind.prefix}_${ordinal}`;
    const known = this.answers[key];
    if (known !== undefined) return Promise.resolve(known as Record<string, unknown>);
    if (this.declared?.[kind.capability] === undefined) {
      this.missing ??= new Set();
      this.missing.add(kind.capability);
      this.wakeUp();
      return Promise.reject(
        new ProtocolError(
          ProtocolErrorCode.MethodNotFound,
          `The client does not support ${method} (no ${kind.capability} capability)`,
        ),
      );
    }
    this.pending ??= new Map();
    const pending = this.pending;
    return new Promise((resolve, reject) => {
      pending.set(key, { method, ...(params !== undefined && { params }), resolve });
      signal.addEventListener(
        "abort",
        () => {
          pending.delete(key);
          reject(signal.reason);
        },
        { once: true },
      );
      this.wakeUp();
    });
  };

  private settle(outcome: RoundOutcome): void {
    this.settled = outcome;
    this.onSettled();
    this.wakeUp();
  }

  private wakeUp(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}

/**
 * Why the answers a client sent cannot be handed on, or undefined: each answer to a key the
 * gateway named must have the shape of its request's result (an elicitation's `action`, a sampled
 * message's `role` and `content`, the `roots` list). Keys the gateway did not name are ignored.
 */
export function invalidResponse(responses: Readonly<Record<string, unknown>>): string | undefined {
  for (const [key, response] of Object.entries(responses)) {
    const prefix = /^(elicitation|sampling|roots)_\d+$/.exec(key)?.[1];
    if (prefix === undefined) continue;
    if (typeof response !== "object" || response === null || Array.isArray(response))
      return `inputResponses.${key} must be an object`;
    const answer = response as Record<string, unknown>;
    if (prefix === "elicitation" && !["accept", "decline", "cancel"].includes(String(answer.action)))
      return `inputResponses.${key}.action must be one of accept, decline, cancel`;
    if (prefix === "sampling" && (typeof answer.role !== "string" || typeof answer.content !== "object"))
      return `inputResponses.${key} must be a sampled message with a role and content`;
    if (prefix === "roots" && !Array.isArray(answer.roots))
      return `inputResponses.${key}.roots must be a list`;
  }
  return undefined;
}
