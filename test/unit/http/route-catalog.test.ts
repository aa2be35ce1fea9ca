import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import type { OperationRouteServices } from "../../../src/app/edge-services.js";
import { REST_BINDINGS, routeRule } from "../../../src/app/rest-routes.js";
import { operationRoutes } from "../../../src/edges/http/routes/operation-routes.js";

/** The `/api` routes the operation routes register, by method and path (HEAD included). */
async function registeredRoutes(): Promise<string[]> {
  const app = Fastify();
  const routes: string[] = [];
  app.addHook("onRoute", (route) => {
    for (const method of [route.method].flat()) routes.push(`${method} ${route.url}`);
  });
  await app.register(
    async (api) => {
      // Services are read when a request runs, never when routes are registered.
      operationRoutes(api, {} as OperationRouteServices);
    },
    { prefix: "/api" },
  );
  await app.ready();
  await app.close();
  return routes;
}

describe("the REST routes generated from the catalog", () => {
  it("gives every registered /api route a rule of the catalog, the routes spec 2 §5 leaves out excepted", async () => {
    const deniedWithAuth = new Set(
      REST_BINDINGS.filter((binding) => binding.deniedWithAuth).map((b) => `${b.method} /api${b.path}`),
    );
    const ruleless = (await registeredRoutes()).filter((route) => {
      const [method = "", url = ""] = route.split(" ");
      if (method === "OPTIONS" || deniedWithAuth.has(route)) return false;
      return routeRule(method, url.slice("/api".length)) === undefined;
    });
    expect(ruleless).toEqual([]);
  });

  it("registers one route per binding, each rule being the binding's operation", async () => {
    const routes = new Set(await registeredRoutes());
    for (const binding of REST_BINDINGS) {
      expect(routes.has(`${binding.method} /api${binding.path}`)).toBe(true);
      if (!binding.deniedWithAuth) expect(routeRule(binding.method, binding.path)).toBe(binding.operation);
    }
  });
});
