import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { registerErrorHandling } from "../../../src/edges/http/plugins/errors.js";

describe("the REST error mapping", () => {
  it("logs an internal failure with its route and error, and answers the caller nothing of it", async () => {
    const lines: { level: string; fields: Record<string, unknown>; message: string }[] = [];
    const record = (level: string) => (fields: Record<string, unknown>, message: string) => {
      lines.push({ level, fields, message });
    };
    const app = Fastify();
    registerErrorHandling(app, {
      debug: record("debug"),
      info: record("info"),
      warn: record("warn"),
      error: record("error"),
    });
    app.get("/api/things/:id", async () => {
      throw new Error('relation "things" does not exist');
    });
    const response = await app.inject({ method: "GET", url: "/api/things/7?token=secret" });
    expect(response.statusCode).toBe(500);
    expect(response.json()).toEqual({
      error: { code: "InternalServerError", message: "An internal server error occurred.", details: null },
    });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: "error",
      message: "request failed",
      fields: { method: "GET", route: "/api/things/:id" },
    });
    expect(String(lines[0]?.fields.err)).toContain("does not exist");
    expect(JSON.stringify(lines[0]?.fields.route)).not.toContain("secret");
    await app.close();
  });
});
