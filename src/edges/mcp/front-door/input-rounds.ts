import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import { GatewayError } from "../../../domain/errors.js";
import { type AskClient, HeldRequest, invalidResponse } from "./held-request.js";
import { argumentsDigest, REQUEST_STATE_TTL_MS, type RequestStateCodec } from "./request-state.js";

/** What a stateless request carries for the rounds of input: its capabilities, answers and state. */
export interface StatelessInput {
  /** `_meta["io.modelcontextprotocol/clientCapabilities"]`; undefined when the request named none. */
  readonly capabilities: Readonly<Record<string, unknown>> | undefined;
  /** `params.inputResponses`: the client's answers, by input key. */
  readonly responses: Readonly<Record<string, unknown>> | undefined;
  /** `params.requestState`, as the gateway issued it. */
  readonly state: string | undefined;
}

/** One stateless request that may need input, as {@link InputRounds.serve} is given it. */
export interface InputRoundRequest {
  readonly method: string;
  /** The tool or prompt name, or the resource URI. */
  readonly name: string;
  readonly args: unknown;
  readonly principal: string;
  readonly input: StatelessInput;
}

/**
 * The rounds of input of stateless clients (revision 2026-07-28) whose requests reach an upstream
 * that asks its client for input on a session (revision 2025-11-25): each upstream request for
 * elicitation, sampling or roots becomes an `input_required` result listing it under a key the
 * gateway names, with a signed `requestState`; the client's retry with `inputResponses` answers it.
 *
 * The request is held on the replica that ran it, which hands the answers of a retry that reaches
 * it to the upstream's waiting requests. A retry that reaches another replica (or comes after the
 * held request ended) runs the request again there, answering the upstream's requests from the
 * answers the state carries and those of the retry: no replica needs another's memory.
 */
export class InputRounds {
  private readonly held = new Map<string, HeldRequest>();

  constructor(
    private readonly codec: RequestStateCodec,
    private readonly now: () => number = Date.now,
  ) {}

  /** Requests held now. */
  get size(): number {
    return this.held.size;
  }

  /**
   * Answers `request`: by running it (`run`, which asks the client through the `AskClient` it is
   * given and stops on the signal), or, for a retry of a request held here, by handing its answers
   * on once `admit` let the retry through. Throws -32602 for a state that fails verification or
   * belongs to another request, or for an answer of the wrong shape; -32021 when the upstream asks
   * for what the client did not declare.
   */
  async serve(
    request: InputRoundRequest,
    admit: () => Promise<void>,
    run: (ask: AskClient, signal: AbortSignal) => Promise<Record<string, unknown>>,
  ): Promise<Record<string, unknown>> {
    const responses = request.input.responses ?? {};
    const problem = invalidResponse(responses);
    if (problem) throw invalidParams(problem);
    let answers: Record<string, unknown> = { ...responses };
    let held: HeldRequest | undefined;
    if (request.input.state !== undefined) {
      const payload = await this.codec.verify(request.input.state, this.now());
      if ("refused" in payload) throw invalidParams(payload.refused);
      if (
        payload.principal !== request.principal ||
        payload.method !== request.method ||
        payload.name !== request.name ||
        payload.args !== argumentsDigest(request.args)
      )
        throw invalidParams("requestState belongs to another request");
      held = this.held.get(payload.hold);
      answers = { ...payload.answers, ...responses };
    }
    if (held) {
      await admit();
      held.answer(responses);
    } else {
      // Held here (by its id) only once a round asks the client for input: a retry can name it then.
      const fresh = new HeldRequest(request.principal, request.input.capabilities, answers);
      fresh.start(run, () => {
        if (fresh.named) this.held.delete(fresh.id);
      });
      held = fresh;
    }
    const outcome = await held.next();
    switch (outcome.kind) {
      case "done":
        return outcome.result;
      case "failed":
        throw outcome.error;
      case "missing":
        throw new GatewayError(
          "MissingRequiredClientCapabilityError",
          `Missing required client capability: ${outcome.capabilities.join(", ")}`,
          { requiredCapabilities: Object.fromEntries(outcome.capabilities.map((name) => [name, {}])) },
        );
      case "input": {
        // An ended request is not held: its retry runs it again from the answers its state carries.
        if (!held.named && !held.ended) this.held.set(held.id, held);
        const requestState = await this.codec.sign({
          hold: held.id,
          principal: request.principal,
          method: request.method,
          name: request.name,
          args: argumentsDigest(request.args),
          answers: held.answers,
          expires: this.now() + REQUEST_STATE_TTL_MS,
        });
        return { resultType: "input_required", inputRequests: outcome.requests, requestState };
      }
    }
  }

  /** Stops every held request (the gateway closes). */
  close(): void {
    for (const held of this.held.values()) held.abort(new Error("the gateway is closing"));
    this.held.clear();
  }
}

function invalidParams(reason: string): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid params: ${reason}`);
}
