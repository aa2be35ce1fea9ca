import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

/**
 * The operator console, built into `dist/ui` (docs/console.md). Relative asset paths, so the
 * console works at whatever `ui.path` the gateway serves it; no inline script (the gateway's
 * Content-Security-Policy allows none), so no module-preload polyfill.
 */
export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "./",
  logLevel: "warn",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: fileURLToPath(new URL("../dist/ui", import.meta.url)),
    emptyOutDir: true,
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
    target: "es2022",
  },
});
