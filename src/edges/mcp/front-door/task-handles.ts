import { SignedJson } from "./request-state.js";

/**
 * What a task handle names: the server that runs the task, the tool whose call created it, its id
 * there, and who may follow it (principal and tenant).
 */
export interface TaskHandle {
  readonly server: string;
  readonly tool: string;
  readonly task: string;
  readonly principal: string;
  readonly tenant: string | null;
}

/**
 * The task ids a stateless client is handed (the tasks extension of revision 2026-07-28): the
 * upstream's id, signed with the server it runs on and the principal that created it
 * ({@link SignedJson}, under the key the replicas share). Any replica routes a client's
 * `tasks/get`, `tasks/update` or `tasks/cancel` from the handle alone, with nothing recorded, and a
 * handle that was changed, or that another principal (or the same id in another tenant) presents,
 * names no task. A handle does not expire: it is good for as long as the upstream keeps the task.
 */
export class TaskHandles {
  private readonly signed: SignedJson<TaskHandle>;

  constructor(obtainKey: () => Promise<Buffer>) {
    this.signed = new SignedJson("task", obtainKey);
  }

  seal(handle: TaskHandle): Promise<string> {
    return this.signed.sign(handle);
  }

  /** The task `handle` names, when this gateway issued it to `principal`. */
  async open(
    handle: unknown,
    principal: { readonly id: string; readonly tenant_id: string | null },
  ): Promise<TaskHandle | undefined> {
    if (typeof handle !== "string") return undefined;
    const opened = await this.signed.open(handle);
    if ("refused" in opened || opened.principal !== principal.id || opened.tenant !== principal.tenant_id)
      return undefined;
    const named = typeof opened.server === "string" && typeof opened.task === "string";
    return named && typeof opened.tool === "string" ? opened : undefined;
  }
}
