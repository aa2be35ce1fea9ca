import type { FastifyInstance } from "fastify";
import { OPERATIONS as op } from "../../../app/catalog.js";
import { execute } from "../../../app/execute.js";
import type { AppServices } from "../../../app/services.js";
import { GatewayError } from "../../../domain/errors.js";
import { restContext } from "../request-context.js";

/** `/api/system`, `/api/system/me`, `/api/tools` and `/api/config`. */
export function systemRoutes(app: FastifyInstance, services: AppServices): void {
  app.get("/system/", async (request) => execute(services, op.systemInfo, {}, restContext(request)));
  app.get("/system/me", async (request) => execute(services, op.whoami, {}, restContext(request)));
  app.get("/tools/", async (request) => execute(services, op.listTools, {}, restContext(request)));
  app.get("/config/", async (request) => execute(services, op.durableConfig, {}, restContext(request)));
  app.post("/config/reload", async (request) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    // Spec 1 "Configuration": a reload always reads the file the process was started with.
    if (typeof body === "object" && Object.hasOwn(body, "config_path")) {
      throw new GatewayError(
        "ValidationError",
        "config_path is not accepted: a reload always reads the file the gateway was started with",
        { field: "config_path" },
      );
    }
    const {
      status: _status,
      message: _message,
      ...result
    } = await execute(services, op.reloadConfig, { graceful: body.graceful }, restContext(request));
    return { status: "reloaded", result: { success: true, ...result } };
  });
}
