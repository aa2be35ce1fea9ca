import type { z } from "zod";
import type { MaybePromise } from "../domain/maybe-promise.js";
import {
  type AccessRule,
  type AdmitTarget,
  admit,
  admitStream,
  mayAdmit,
  type StreamGrant,
} from "./admit.js";
import type { RequestContext } from "./context.js";
import { type ExecuteOptions, execute } from "./execute.js";
import type { Operation } from "./operation.js";
import type { AppServices } from "./services.js";

/**
 * How an edge runs operations and asks for admission: `execute`, `admit`, `mayAdmit` and
 * `admitStream` bound by composition to the services, so that no edge holds the services whole.
 * Each method is the function of the same name (`execute.ts`, `admit.ts`) without its first argument.
 */
export interface OperationRunner {
  execute<S extends z.ZodType, O>(
    operation: Operation<S, O>,
    rawInput: unknown,
    ctx: RequestContext,
    options?: ExecuteOptions,
  ): Promise<O>;
  admit(
    rule: AccessRule | Operation,
    ctx: RequestContext,
    target?: AdmitTarget,
    input?: unknown,
    raw?: boolean,
  ): MaybePromise<RequestContext>;
  mayAdmit(rule: AccessRule, ctx: RequestContext, target?: AdmitTarget): MaybePromise<boolean>;
  admitStream(rule: AccessRule, ctx: RequestContext, target?: AdmitTarget): MaybePromise<StreamGrant | null>;
}

/** The runner of `services`: what composition hands the edges. */
export function operationRunner(services: AppServices): OperationRunner {
  return {
    execute: (operation, rawInput, ctx, options) => execute(services, operation, rawInput, ctx, options),
    admit: (rule, ctx, target, input, raw) => admit(services, rule, ctx, target, input, raw),
    mayAdmit: (rule, ctx, target) => mayAdmit(services, rule, ctx, target),
    admitStream: (rule, ctx, target) => admitStream(services, rule, ctx, target),
  };
}
