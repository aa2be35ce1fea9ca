import { existsSync } from "node:fs";
import { join } from "node:path";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance } from "fastify";

export interface ConsoleStaticOptions {
  /** `ui.path`: where the console is served (`/ui`). */
  path: string;
  /** The built console (`dist/ui`, made by `npm run build`). */
  root: string;
}

/**
 * The console's pages, scripts and styles: no inline script or style anywhere, so the
 * Content-Security-Policy allows only the gateway's own files, and only same-origin requests
 * (the REST API and its WebSocket streams). Hashed assets are cached for good; the page itself is
 * revalidated, so a new release is picked up at the next load. Files compressed at build time
 * (`.br`, `.gz`) are sent to a browser that accepts them.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

/** Whether `root` holds a built console. */
export function consoleBuilt(root: string): boolean {
  return existsSync(join(root, "index.html"));
}

export async function consoleStaticRoutes(
  app: FastifyInstance,
  options: ConsoleStaticOptions,
): Promise<void> {
  const prefix = `${options.path}/`;
  app.get(options.path, (_request, reply) => reply.redirect(prefix, 308));
  await app.register(async (scope) => {
    scope.addHook("onSend", async (request, reply, payload) => {
      reply.header("Content-Security-Policy", CONTENT_SECURITY_POLICY);
      reply.header("X-Content-Type-Options", "nosniff");
      reply.header("Referrer-Policy", "no-referrer");
      reply.header("Cross-Origin-Opener-Policy", "same-origin");
      const assets = request.url.startsWith(`${prefix}assets/`);
      reply.header("Cache-Control", assets ? "public, max-age=31536000, immutable" : "no-cache");
      return payload;
    });
    await scope.register(fastifyStatic, {
      root: options.root,
      prefix,
      // The page itself is its own route: the plugin's directory index misses the compressed
      // copies (404 to a browser that accepts them).
      index: false,
      preCompressed: true,
      cacheControl: false,
      dotfiles: "deny",
      decorateReply: true,
      wildcard: true,
    });
    scope.get(prefix, (_request, reply) => reply.sendFile("index.html"));
  });
}
