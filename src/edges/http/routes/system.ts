import type { FastifyInstance } from "fastify";
import { OPERATIONS as op } from "../../../app/catalog.js";
import { execute } from "../../../app/execute.js";
import type { AppServices } from "../../../app/services.js";
import { restContext } from "../request-context.js";

/** `/api/system`, `/api/system/me` and `/api/tools`. */
export function systemRoutes(app: FastifyInstance, services: AppServices): void {
  app.get("/system/", async (request) => execute(services, op.systemInfo, {}, restContext(request)));
  app.get("/system/me", async (request) => execute(services, op.whoami, {}, restContext(request)));
  app.get("/tools/", async (request) => execute(services, op.listTools, {}, restContext(request)));
}
