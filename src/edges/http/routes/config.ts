import type { FastifyInstance } from "fastify";
import { OPERATIONS as op } from "../../../app/catalog.js";
import { execute } from "../../../app/execute.js";
import type { AppServices } from "../../../app/services.js";
import { restContext } from "../request-context.js";
import { bodyWith } from "./route-input.js";

/**
 * `/api/config` (spec 1 "Configuration"): the durable records, reload, export of the in-memory
 * state, backup and diff of the file named by `MCP_CONFIG`. The bare `/config` redirects (307).
 */
export function configRoutes(app: FastifyInstance, services: AppServices): void {
  app.get("/config/", async (request) => execute(services, op.durableConfig, {}, restContext(request)));
  app.post("/config/reload", async (request) => {
    const body = bodyWith(request.body);
    const {
      status: _status,
      message: _message,
      ...result
    } = await execute(services, op.reloadConfig, body, restContext(request));
    return { status: "reloaded", result: { success: true, ...result } };
  });
  app.post("/config/export", async (request) =>
    execute(services, op.exportRunningConfig, bodyWith(request.body), restContext(request)),
  );
  app.post("/config/backup", async (request) =>
    execute(services, op.backupConfig, bodyWith(request.body), restContext(request)),
  );
  app.get("/config/diff", async (request) => execute(services, op.diffConfig, {}, restContext(request)));
}
